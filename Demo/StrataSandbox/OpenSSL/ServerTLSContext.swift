import COpenSSL
import Strata

/// The server side's `SSL_CTX`: TLS 1.2 or newer, presenting one identity. Shared by every
/// connection thread; `SSL_new` on a shared context is thread-safe in OpenSSL, and the lock makes
/// that sharing compiler-checked.
final class ServerTLSContext: Sendable {
    private let context: LockedValue<OpaquePointer>

    /// Creates a context that presents `identity`'s certificate and proves it with its key.
    ///
    /// - Throws: ``SandboxOpenSSLError`` when OpenSSL refuses the certificate or the key.
    init(identity: sending ServerIdentity) throws(SandboxOpenSSLError) {
        _ = OpenSSLLibrary.initialized
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw .drained("create a TLS server context") }
        // SSL_CTX_use_* take their own references, so the identity's objects may go away.
        guard strata_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1,
            SSL_CTX_use_certificate(context, identity.x509.pointer) == 1,
            SSL_CTX_use_PrivateKey(context, identity.key.pointer) == 1,
            SSL_CTX_check_private_key(context) == 1
        else {
            SSL_CTX_free(context)
            throw .drained("load the server certificate and key")
        }
        self.context = LockedValue(context)
    }

    deinit { context.withLock { SSL_CTX_free($0) } }

    /// A new server-side session over `transport`, after a completed handshake.
    ///
    /// - Returns: `nil` when the handshake fails: the client refused the certificate, spoke
    ///   something other than TLS, or went away.
    func accept(over transport: any ByteChannel) -> ServerTLSSession? {
        guard let ssl = context.withLock({ SSL_new($0) }) else { return nil }
        return ServerTLSSession(owning: ssl, over: transport)
    }
}
