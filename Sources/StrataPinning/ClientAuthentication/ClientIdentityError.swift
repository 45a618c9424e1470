import Foundation

/// Why a ``ClientIdentity`` could not be read. No case, and no description, carries key
/// material or the passphrase.
public enum ClientIdentityError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The certificate chain PEM holds no usable certificate.
    case unreadableCertificateChain(CertificateError)
    /// The private key PEM holds no key OpenSSL can read; `reason` is OpenSSL's text.
    case unreadablePrivateKey(reason: String)
    /// The private key is encrypted and no passphrase was given.
    case passphraseRequired
    /// The private key is encrypted and the passphrase does not decrypt it.
    case wrongPassphrase
    /// The private key does not belong to the certificate with this subject.
    case keyDoesNotMatchCertificate(subject: String)

    /// What is wrong, and what to pass instead.
    public var description: String {
        switch self {
        case let .unreadableCertificateChain(error):
            "Cannot read the client certificate chain: \(error.description)"
        case let .unreadablePrivateKey(reason):
            "Cannot read the client private key; give a PEM 'PRIVATE KEY', 'ENCRYPTED PRIVATE KEY', 'EC PRIVATE KEY' "
                + "or 'RSA PRIVATE KEY' block (OpenSSL: \(reason))."
        case .passphraseRequired:
            "The client private key is encrypted; pass its passphrase to ClientIdentity."
        case .wrongPassphrase:
            "The passphrase does not decrypt the client private key."
        case let .keyDoesNotMatchCertificate(subject):
            "The private key does not belong to the client certificate \(subject); give the key the certificate was issued for."
        }
    }
}

extension ClientIdentityError: LocalizedError {
    /// The same text as `description`.
    public var errorDescription: String? { description }
}
