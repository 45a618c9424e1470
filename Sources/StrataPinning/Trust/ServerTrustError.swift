import Foundation

/// Why a server was not trusted. Every case means the connection was closed before any request
/// byte was sent; none is worth retrying without a configuration or server change.
///
/// The chain cases carry OpenSSL's own reason text (`reason`) and the verify code (`code`, an
/// `X509_V_ERR_*` value) so a log shows exactly what OpenSSL saw.
public enum ServerTrustError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The chain verified, but no certificate in it matched a pin. `chain` is the verified chain
    /// (leaf first); `pins` are the configured pins.
    case pinMismatch(host: String, chain: [Certificate], pins: [String])
    /// A certificate in the chain is past its notAfter date (`X509_V_ERR_CERT_HAS_EXPIRED`).
    case certificateExpired(host: String, code: Int, reason: String)
    /// A certificate in the chain is before its notBefore date (`X509_V_ERR_CERT_NOT_YET_VALID`).
    case certificateNotYetValid(host: String, code: Int, reason: String)
    /// The leaf does not name the host (`X509_V_ERR_HOSTNAME_MISMATCH`, `..._IP_ADDRESS_MISMATCH`).
    case hostnameMismatch(host: String, code: Int, reason: String)
    /// The leaf signs itself and is not a trusted root (`X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT`).
    case selfSignedCertificate(host: String, code: Int, reason: String)
    /// The chain does not lead to a trusted root: unknown issuer, untrusted self-signed root in
    /// the chain, or a leaf that cannot be verified.
    case untrustedIssuer(host: String, code: Int, reason: String)
    /// Any other verification failure (bad signature, revoked, wrong purpose, ...).
    case chainRejected(host: String, code: Int, reason: String)
    /// The handshake produced no verified chain to evaluate (for example a resumed session).
    case noVerifiedChain(host: String)

    /// The host the failure is about.
    public var host: String {
        switch self {
        case let .pinMismatch(host, _, _), let .certificateExpired(host, _, _),
            let .certificateNotYetValid(host, _, _), let .hostnameMismatch(host, _, _),
            let .selfSignedCertificate(host, _, _), let .untrustedIssuer(host, _, _),
            let .chainRejected(host, _, _), let .noVerifiedChain(host):
            host
        }
    }

    /// For a pin mismatch, OkHttp's layout: the verified chain as `sha256/<base64>: <subject>`
    /// lines, then the configured pins, ready to copy. Otherwise one sentence with OpenSSL's reason.
    public var description: String {
        switch self {
        case let .pinMismatch(host, chain, pins):
            var lines = ["Certificate pinning failure for \(host)!", "  Peer certificate chain:"]
            lines += chain.map { "    \($0.spkiPin): \($0.subject)" }
            lines.append("  Pinned certificates for \(host):")
            lines += pins.map { "    \($0)" }
            return lines.joined(separator: "\n")
        case let .certificateExpired(host, code, reason):
            return "The certificate of \(host) has expired (OpenSSL \(code): \(reason))."
        case let .certificateNotYetValid(host, code, reason):
            return "The certificate of \(host) is not valid yet; check the clock (OpenSSL \(code): \(reason))."
        case let .hostnameMismatch(host, code, reason):
            return "The certificate presented by \(host) is for another name (OpenSSL \(code): \(reason))."
        case let .selfSignedCertificate(host, code, reason):
            return "\(host) presented a self-signed certificate that is not trusted (OpenSSL \(code): \(reason))."
        case let .untrustedIssuer(host, code, reason):
            return "The certificate chain of \(host) does not lead to a trusted root; for a private CA "
                + "use TrustRoots.certificates (OpenSSL \(code): \(reason))."
        case let .chainRejected(host, code, reason):
            return "The certificate chain of \(host) was rejected (OpenSSL \(code): \(reason))."
        case let .noVerifiedChain(host):
            return "The TLS connection to \(host) has no verified certificate chain to check."
        }
    }
}

extension ServerTrustError: LocalizedError {
    /// The same text as `description`, so `localizedDescription` says what happened and what
    /// to do instead of "The operation could not be completed".
    public var errorDescription: String? { description }
}
