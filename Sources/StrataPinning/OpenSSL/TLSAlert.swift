import COpenSSL

/// A TLS alert the server sent (RFC 8446 §6), read from OpenSSL's error queue, where a
/// received alert is reported as reason `1000 + code` (`SSL_AD_REASON_OFFSET`).
struct TLSAlert: Equatable {
    /// The alert's code, such as 116 for `certificate_required`.
    let code: Int

    /// The alerts by which a server refuses a client certificate.
    static let certificateRefusals: Set<Int> = [42, 43, 44, 45, 46, 48, 49, 116]
    /// TLS 1.3's "a certificate is required" (RFC 8446 §6.2).
    static let certificateRequired = 116
    /// The generic handshake failure, which TLS 1.2 servers send for a missing certificate.
    static let handshakeFailure = 40

    /// The RFC name, such as `unknown_ca`.
    var name: String {
        switch code {
        case 40: "handshake_failure"
        case 42: "bad_certificate"
        case 43: "unsupported_certificate"
        case 44: "certificate_revoked"
        case 45: "certificate_expired"
        case 46: "certificate_unknown"
        case 48: "unknown_ca"
        case 49: "access_denied"
        case 116: "certificate_required"
        default: "alert \(code)"
        }
    }

    /// The alert received from the peer, if the oldest or newest of the calling thread's queued
    /// errors reports one (a failed read queues one or two); the queue is left as it is (call
    /// before ``OpenSSLErrorQueue/drain(fallback:)``).
    static func received() -> TLSAlert? {
        for error in [ERR_peek_error(), ERR_peek_last_error()] where error != 0 {
            let reason = Int(ERR_GET_REASON(error))
            let offset = Int(SSL_AD_REASON_OFFSET)
            if ERR_GET_LIB(error) == ERR_LIB_SSL, (offset..<offset + 256).contains(reason) {
                return TLSAlert(code: reason - offset)
            }
        }
        return nil
    }

    /// The client-certificate failure this alert means, or nil when it is about something else.
    ///
    /// - Parameters:
    ///   - presented: The subject of the certificate that was sent, nil when none was.
    ///   - certificateRequested: Whether the server sent a TLS 1.2 CertificateRequest, which
    ///     makes its `handshake_failure` about the certificate.
    func clientAuthenticationError(
        host: String, presented: String?,
        certificateRequested: Bool
    ) -> ClientAuthenticationError? {
        let aboutCertificate =
            Self.certificateRefusals.contains(code)
            || (code == Self.handshakeFailure && certificateRequested)
        guard let presented else {
            return code == Self.certificateRequired || (code == Self.handshakeFailure && certificateRequested)
                ? .certificateRequired(host: host) : nil
        }
        return aboutCertificate ? .certificateRefused(host: host, subject: presented, alert: name) : nil
    }
}
