import COpenSSL

/// An owned OpenSSL `X509_STORE` holding the trust anchors of a ``TrustRoots`` value.
///
/// The TLS client gives it to its `SSL_CTX` with ``configureVerification(of:)``; the offline
/// ``X509ChainVerifier`` uses it directly.
final class X509TrustStore {
    /// The owned pointer; freed in `deinit`.
    let pointer: OpaquePointer
    /// The roots this store was built from.
    let roots: TrustRoots

    /// Builds a store: OpenSSL's compiled-in system CA paths for ``TrustRoots/system`` (the
    /// environment is ignored), exactly the given
    /// certificates for ``TrustRoots/certificates(_:)``, and an empty store for
    /// ``TrustRoots/pinnedKeysOnly`` (nothing is trusted by chain).
    ///
    /// - Throws: ``PinningConfigurationError/noTrustedCertificates`` for an empty list, or
    ///   ``PinningConfigurationError/trustStoreFailed(reason:)`` with OpenSSL's reason.
    init(roots: TrustRoots) throws(PinningConfigurationError) {
        OpenSSLErrorQueue.clear()
        guard let store = X509_STORE_new() else {
            throw .trustStoreFailed(reason: OpenSSLErrorQueue.drain(fallback: "out of memory"))
        }
        pointer = store
        self.roots = roots
        switch roots {
        case .system:
            // Not X509_STORE_set_default_paths: it reads SSL_CERT_FILE / SSL_CERT_DIR, so an
            // environment variable could swap the anchors pinned hosts are verified against.
            let paths = Self.systemPaths
            let fileLoaded = X509_STORE_load_file(store, paths.file) == 1
            let directoryAdded = X509_STORE_load_path(store, paths.directory) == 1
            guard fileLoaded || directoryAdded else {
                throw .trustStoreFailed(
                    reason: OpenSSLErrorQueue.drain(
                        fallback: "cannot load the system CA bundle \(paths.file) or directory \(paths.directory)"))
            }
            // A missing bundle with a usable directory (or the reverse) is fine, as OpenSSL's defaults are.
            OpenSSLErrorQueue.clear()
        case let .certificates(certificates):
            guard !certificates.isEmpty else { throw .noTrustedCertificates }
            for certificate in certificates {
                let x509: X509Certificate
                do {
                    x509 = try X509Certificate(der: certificate.der)
                } catch {
                    throw .trustStoreFailed(reason: error.description)
                }
                // X509_STORE_add_cert takes its own reference; ours is freed with `x509`.
                guard X509_STORE_add_cert(store, x509.pointer) == 1 else {
                    throw .trustStoreFailed(reason: OpenSSLErrorQueue.drain(fallback: "cannot add \(certificate.subject)"))
                }
            }
        case .pinnedKeysOnly:
            break
        }
    }

    deinit {
        X509_STORE_free(pointer)
    }

    /// The system CA bundle and directory compiled into OpenSSL (on Debian `/usr/lib/ssl/cert.pem`
    /// and `/usr/lib/ssl/certs`), never the `SSL_CERT_FILE` / `SSL_CERT_DIR` overrides.
    static var systemPaths: (file: String, directory: String) {
        (String(cString: X509_get_default_cert_file()), String(cString: X509_get_default_cert_dir()))
    }

    /// Makes `context` (an `SSL_CTX *`) verify peers against this store: `SSL_VERIFY_PEER`, so a
    /// failed verification aborts the handshake and `SSL_get0_verified_chain` is trustworthy.
    /// For ``TrustRoots/pinnedKeysOnly`` it sets `SSL_VERIFY_NONE`: the handshake completes
    /// whatever the chain and only the leaf's key is checked afterwards.
    func configureVerification(of context: OpaquePointer) {
        guard roots.verifiesChain else {
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
            return
        }
        // set1 adds a reference, so the context keeps the store alive after this object goes.
        SSL_CTX_set1_cert_store(context, pointer)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
    }
}
