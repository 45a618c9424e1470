import COpenSSL

/// Conversions between OpenSSL certificate stacks and ``Certificate`` values.
enum X509Chain {
    /// Copies a `STACK_OF(X509)` (for example from `SSL_get0_verified_chain` or
    /// `X509_STORE_CTX_get1_chain`) into values, in stack order (leaf first). The stack is
    /// borrowed: it is neither freed nor kept.
    ///
    /// - Throws: ``CertificateError`` if a certificate cannot be re-encoded.
    static func certificates(fromStack stack: OpaquePointer) throws(CertificateError) -> [Certificate] {
        let count = strata_sk_X509_num(stack)
        var certificates: [Certificate] = []
        certificates.reserveCapacity(Int(max(count, 0)))
        for index in 0..<max(count, 0) {
            guard let borrowed = strata_sk_X509_value(stack, index) else { continue }
            certificates.append(try X509Certificate(retaining: borrowed).value())
        }
        return certificates
    }

    /// The ``Certificate`` for a borrowed `X509 *` (for example `SSL_get0_peer_certificate`).
    static func certificate(borrowing pointer: OpaquePointer) throws(CertificateError) -> Certificate {
        try X509Certificate(retaining: pointer).value()
    }
}
