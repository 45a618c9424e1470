/// Passes when a certificate of the verified chain is byte-for-byte one of the given certificates.
///
/// Stricter than ``PublicKeyPinningEvaluator``: renewing the certificate breaks the pin even
/// when the key is unchanged, so ship the next certificate before you deploy it.
public struct CertificatePinningEvaluator: ServerTrustEvaluator {
    /// The accepted certificates.
    public let certificates: [Certificate]

    /// `true` when certificates are given: a pinned certificate pins its key too.
    public var requiresPinnedKey: Bool { !certificates.isEmpty }

    /// Creates an evaluator accepting any of `certificates` anywhere in the verified chain.
    /// An empty list accepts nothing.
    public init(certificates: [Certificate]) {
        self.certificates = certificates
    }

    /// Passes if any certificate of `chain` has the same DER as a pinned certificate.
    ///
    /// - Throws: ``ServerTrustError/pinMismatch(host:chain:pins:)``; its pins read
    ///   `certificate <subject> (key sha256/<base64>)`.
    public func evaluate(_ chain: [Certificate], forHost host: String) throws {
        for certificate in chain where certificates.contains(certificate) {
            return
        }
        throw ServerTrustError.pinMismatch(
            host: host, chain: chain,
            pins: certificates.map { "certificate \($0.subject) (key \($0.spkiPin))" })
    }
}
