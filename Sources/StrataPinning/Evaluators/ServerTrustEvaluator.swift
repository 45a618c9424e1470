/// A check a server's certificate chain must pass, run after OpenSSL has verified the chain
/// and the host name and before the first request byte is sent.
///
/// An evaluator adds to chain validation; it never replaces it (see ``TrustRoots``). Conform to
/// write your own rule; the built-in ones are ``PublicKeyPinningEvaluator``,
/// ``CertificatePinningEvaluator`` and ``CompositeTrustEvaluator``.
public protocol ServerTrustEvaluator: Sendable {
    /// Throws unless `chain` is acceptable for `host`.
    ///
    /// - Parameters:
    ///   - chain: The verified chain, leaf first, ending at the trust anchor. Never the raw
    ///     chain the peer sent: a forged chain may carry a genuine certificate it cannot use.
    ///   - host: The host the connection was made to, as in the request URL.
    /// - Throws: ``ServerTrustError/pinMismatch(host:chain:pins:)`` or another error describing
    ///   the failure; the connection is then closed without sending anything.
    func evaluate(_ chain: [Certificate], forHost host: String) throws

    /// Whether this evaluator passes only a chain holding a key (or certificate) you pinned.
    ///
    /// ``TrustRoots/pinnedKeysOnly`` turns chain validation off, so the evaluator is the whole
    /// check: `PinningTransport` refuses that mode (a configuration error) unless every
    /// evaluator says true here. Default: `false`; a custom evaluator that pins keys may say true.
    var requiresPinnedKey: Bool { get }
}

extension ServerTrustEvaluator {
    /// `false`: an evaluator pins nothing unless it says so.
    public var requiresPinnedKey: Bool { false }
}
