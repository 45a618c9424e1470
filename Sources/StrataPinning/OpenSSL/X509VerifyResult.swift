import COpenSSL

/// Maps an OpenSSL verify result (`SSL_get_verify_result`, `X509_STORE_CTX_get_error`) to a
/// ``ServerTrustError`` carrying OpenSSL's reason text.
enum X509VerifyResult {
    /// The error for a failed verification, or nil for `X509_V_OK`.
    static func error(code: Int, host: String) -> ServerTrustError? {
        guard code != Int(X509_V_OK) else { return nil }
        let reason = X509_verify_cert_error_string(code).map { String(cString: $0) } ?? "unknown error"
        switch Int32(truncatingIfNeeded: code) {
        case X509_V_ERR_CERT_HAS_EXPIRED:
            return .certificateExpired(host: host, code: code, reason: reason)
        case X509_V_ERR_CERT_NOT_YET_VALID:
            return .certificateNotYetValid(host: host, code: code, reason: reason)
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
            return .hostnameMismatch(host: host, code: code, reason: reason)
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
            return .selfSignedCertificate(host: host, code: code, reason: reason)
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
            X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
            X509_V_ERR_CERT_UNTRUSTED:
            return .untrustedIssuer(host: host, code: code, reason: reason)
        default:
            return .chainRejected(host: host, code: code, reason: reason)
        }
    }
}
