import COpenSSL
import Strata

/// The one OpenSSL `SSL_CTX` a pinning transport makes its client connections from: TLS 1.2 or
/// newer, peer verification against the configured ``TrustRoots``, ALPN offering the configured
/// HTTP versions (`h2` and `http/1.1` by default), no renegotiation, no compression, and no
/// session resumption.
///
/// Resumption is off on purpose: a resumed session carries no verified chain, and re-checking it
/// would need the chain cached beside the session. A full handshake per *connection* costs about
/// 1.5 ms, and keep-alive makes new connections rare, so every connection is fully verified.
final class TLSClientContext: Sendable {
    /// The ALPN protocol names offered, most preferred first.
    let protocols: [String]

    /// `SSL_CTX` is safe to share between threads for `SSL_new`; the mutex makes that sharing
    /// checked by the compiler instead of assumed, and costs one uncontended lock per connection.
    private let context: LockedValue<OpaquePointer>
    /// The roots the context verifies against.
    let roots: TrustRoots

    /// Builds the context.
    ///
    /// - Throws: ``PinningConfigurationError`` when the trust store or the context cannot be built.
    init(roots: TrustRoots, protocols: [String] = ["http/1.1"]) throws(PinningConfigurationError) {
        let store = try X509TrustStore(roots: roots)
        // RFC 7301 §3.1: each name prefixed by its length.
        let wire = protocols.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
        OpenSSLErrorQueue.clear()
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw .trustStoreFailed(reason: OpenSSLErrorQueue.drain(fallback: "SSL_CTX_new failed"))
        }
        guard strata_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1,
            SSL_CTX_set_alpn_protos(context, wire, UInt32(wire.count)) == 0
        else {
            SSL_CTX_free(context)
            throw .trustStoreFailed(reason: OpenSSLErrorQueue.drain(fallback: "cannot configure the TLS context"))
        }
        _ = SSL_CTX_set_options(context, strata_SSL_OP_NO_RENEGOTIATION() | strata_SSL_OP_NO_COMPRESSION())
        _ = strata_SSL_CTX_set_session_cache_mode(context, Int(SSL_SESS_CACHE_OFF))
        store.configureVerification(of: context)
        self.context = LockedValue(context)
        self.roots = roots
        self.protocols = protocols
    }

    deinit {
        context.withLock { SSL_CTX_free($0) }
    }

    /// A new client `SSL *` (owned by the caller, who frees it), or nil when OpenSSL cannot allocate one.
    func makeSSL() -> OpaquePointer? {
        context.withLock { SSL_new($0) }
    }
}
