import Strata

extension TransportError {
    /// The certificate problem behind a ``/Strata/TransportError/Kind/tls`` failure of
    /// ``PinningTransport``: a pin mismatch, an expired certificate, a wrong host name, ...
    /// `nil` for other failures.
    public var serverTrustError: ServerTrustError? {
        underlying as? ServerTrustError
    }
}
