import COpenSSL
import Foundation
@testable import StrataPinning

/// A real TLS 1.2+ handshake between an OpenSSL client and server joined by a BIO pair, in
/// memory: no socket, no thread, deterministic. It lets the post-handshake trust decision
/// (`TLSPeerTrust`) be tested on what OpenSSL really verifies, offline.
final class InMemoryHandshake {
    private let clientContext: OpaquePointer
    private let serverContext: OpaquePointer
    let client: OpaquePointer
    private let server: OpaquePointer
    /// Whether both sides finished the handshake.
    private(set) var completed = false

    /// - Parameters:
    ///   - chainFile: The fixture PEM the server sends (leaf first); `keyFile` is the leaf's key.
    ///   - host: The name the client connects to.
    ///   - roots: What the client trusts.
    init(serverChain chainFile: String, key keyFile: String, host: String, roots: TrustRoots) throws {
        guard let clientContext = SSL_CTX_new(TLS_client_method()),
            let serverContext = SSL_CTX_new(TLS_server_method())
        else { throw HandshakeSetupError("SSL_CTX_new") }
        self.clientContext = clientContext
        self.serverContext = serverContext
        _ = strata_SSL_CTX_set_min_proto_version(clientContext, TLS1_2_VERSION)
        let chainPath = Fixtures.directory.appendingPathComponent(chainFile).path
        let keyPath = Fixtures.directory.appendingPathComponent(keyFile).path
        guard SSL_CTX_use_certificate_chain_file(serverContext, chainPath) == 1,
            SSL_CTX_use_PrivateKey_file(serverContext, keyPath, SSL_FILETYPE_PEM) == 1
        else {
            throw HandshakeSetupError("server certificate \(chainFile)")
        }
        try X509TrustStore(roots: roots).configureVerification(of: clientContext)
        guard let client = SSL_new(clientContext), let server = SSL_new(serverContext) else {
            throw HandshakeSetupError("SSL_new")
        }
        self.client = client
        self.server = server
        var clientEnd: OpaquePointer?
        var serverEnd: OpaquePointer?
        guard BIO_new_bio_pair(&clientEnd, 0, &serverEnd, 0) == 1 else { throw HandshakeSetupError("BIO pair") }
        SSL_set_bio(client, clientEnd, clientEnd)
        SSL_set_bio(server, serverEnd, serverEnd)
        SSL_set_connect_state(client)
        SSL_set_accept_state(server)
        try TLSPeerTrust.expect(host: host, on: client)
        run()
    }

    deinit {
        SSL_free(client)
        SSL_free(server)
        SSL_CTX_free(clientContext)
        SSL_CTX_free(serverContext)
    }

    /// The SNI name the server received, if any.
    var serverNameSeen: String? {
        SSL_get_servername(server, TLSEXT_NAMETYPE_host_name).map { String(cString: $0) }
    }

    /// Steps both sides until the handshake completes or one side fails (bounded: no hang).
    private func run() {
        var clientDone = false, serverDone = false
        for _ in 0..<20 where !(clientDone && serverDone) {
            guard let c = step(client, done: &clientDone), let s = step(server, done: &serverDone), c, s else { break }
        }
        completed = clientDone && serverDone
        ERR_clear_error()
    }

    /// Returns nil when the side failed, true when it may continue.
    private func step(_ ssl: OpaquePointer, done: inout Bool) -> Bool? {
        guard !done else { return true }
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            done = true
            return true
        }
        let error = SSL_get_error(ssl, result)
        return error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE ? true : nil
    }
}

struct HandshakeSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
