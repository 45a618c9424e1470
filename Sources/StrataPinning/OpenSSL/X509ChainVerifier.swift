import COpenSSL
import Foundation

/// Verifies a certificate chain offline with `X509_verify_cert`, the same checks a TLS
/// handshake with `SSL_VERIFY_PEER` and `SSL_set1_host` runs: signatures up to a trust anchor,
/// validity dates, CA constraints, the TLS-server purpose and the host name.
///
/// Used to prove the trust rules without a network and to check configured certificates.
struct X509ChainVerifier {
    let store: X509TrustStore

    /// Creates a verifier trusting `roots`.
    init(roots: TrustRoots) throws(PinningConfigurationError) {
        store = try X509TrustStore(roots: roots)
    }

    /// Verifies `presented` (leaf first, then any certificates the peer sent) for `host`.
    ///
    /// - Parameters:
    ///   - presented: What a peer would send. Certificates after the leaf are only candidates
    ///     for chain building, never trusted because they are present.
    ///   - host: The expected DNS name or IP literal; nil skips the name check.
    ///   - time: The moment to check validity at; nil means now.
    /// - Returns: The chain OpenSSL built and verified, leaf first, ending at a trust anchor.
    /// - Throws: ``ServerTrustError`` with OpenSSL's reason.
    func verify(_ presented: [Certificate], host: String?, at time: Date? = nil) throws -> [Certificate] {
        let reportedHost = host ?? ""
        guard let leafValue = presented.first else { throw ServerTrustError.noVerifiedChain(host: reportedHost) }
        let leaf = try X509Certificate(der: leafValue.der)
        let intermediates = try presented.dropFirst().map { certificate throws(CertificateError) in
            try X509Certificate(der: certificate.der)
        }
        // The context borrows these X509 pointers without a reference: keep the owners alive.
        return try withExtendedLifetime((leaf, intermediates)) {
            try verify(leaf: leaf, intermediates: intermediates, host: host, reportedHost: reportedHost, at: time)
        }
    }

    private func verify(
        leaf: X509Certificate, intermediates: [X509Certificate], host: String?, reportedHost: String,
        at time: Date?
    ) throws -> [Certificate] {
        OpenSSLErrorQueue.clear()
        guard let context = X509_STORE_CTX_new() else {
            throw ServerTrustError.chainRejected(
                host: reportedHost, code: -1,
                reason: OpenSSLErrorQueue.drain(fallback: "out of memory"))
        }
        guard let untrusted = strata_sk_X509_new_null() else {
            X509_STORE_CTX_free(context)
            throw ServerTrustError.chainRejected(
                host: reportedHost, code: -1,
                reason: OpenSSLErrorQueue.drain(fallback: "out of memory"))
        }
        defer {
            // sk_X509_free, not pop_free: the certificates belong to `intermediates`.
            strata_sk_X509_free(untrusted)
            X509_STORE_CTX_free(context)
        }
        for intermediate in intermediates {
            _ = strata_sk_X509_push(untrusted, intermediate.pointer)
        }
        guard X509_STORE_CTX_init(context, store.pointer, leaf.pointer, untrusted) == 1 else {
            throw ServerTrustError.chainRejected(
                host: reportedHost, code: -1,
                reason: OpenSSLErrorQueue.drain(fallback: "cannot start verification"))
        }
        _ = X509_STORE_CTX_set_purpose(context, X509_PURPOSE_SSL_SERVER)
        let parameters = X509_STORE_CTX_get0_param(context)
        if let host {
            // The same canonical form and flags as a live connection (TLSPeerTrust.expect).
            guard let canonical = try? CanonicalHost(host), let parameters,
                TLSPeerTrust.name(canonical, on: parameters)
            else {
                throw ServerTrustError.hostnameMismatch(host: host, code: -1, reason: "not a valid host name")
            }
        }
        if let time {
            X509_VERIFY_PARAM_set_time(parameters, time_t(time.timeIntervalSince1970))
        }
        let verified = X509_verify_cert(context) == 1
        let code = Int(X509_STORE_CTX_get_error(context))
        _ = OpenSSLErrorQueue.drain(fallback: "")
        guard verified else {
            throw X509VerifyResult.error(code: code, host: reportedHost)
                ?? ServerTrustError.chainRejected(host: reportedHost, code: code, reason: "verification failed")
        }
        guard let chain = X509_STORE_CTX_get1_chain(context) else {
            throw ServerTrustError.noVerifiedChain(host: reportedHost)
        }
        defer { strata_sk_X509_pop_free(chain) }
        return try X509Chain.certificates(fromStack: chain)
    }
}
