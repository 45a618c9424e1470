import COpenSSL
import Strata

/// One client `SSL *` and its two memory BIOs: OpenSSL's TLS state machine, stepped by
/// ``TLSSession``, which moves the ciphertext between these BIOs and the socket.
///
/// Every OpenSSL call of a connection's life sits here, so the TLS code above works with Swift
/// values only (``Step``, byte counts, ``Certificate``s, typed errors), as swift-nio-ssl's early
/// releases kept `SSL *` inside their connection wrapper. Each step clears the calling thread's
/// OpenSSL error queue first, so a failure reads exactly that step's errors.
///
/// Not thread-safe: ``TLSStream`` keeps its session, and so this object, behind a mutex.
final class SSLConnection {
    /// What one step of OpenSSL's state machine reported.
    enum Step: Equatable {
        /// The step did its work: this many plaintext bytes were read or written (0 for a
        /// completed handshake).
        case progressed(Int)
        /// OpenSSL needs ciphertext from the peer: give it some (``giveCiphertext(_:)``) and retry.
        case wantRead
        /// OpenSSL needs its queued ciphertext sent (``takeCiphertext(into:)``) before it goes on.
        case wantWrite
        /// The peer closed the TLS session with its close_notify.
        case closed
        /// The session failed, with OpenSSL's `SSL_get_error` code; ``handshakeFailure(code:peer:)``
        /// or ``failure(doing:peer:)`` turns the queued errors into a typed error.
        case failed(code: Int32)
    }

    private let ssl: OpaquePointer
    private let input: OpaquePointer
    private let output: OpaquePointer
    /// The host the certificate must name, for the checks and error messages.
    let host: String

    /// Creates the client `SSL *` of one connection to `host` from `context`: SNI and the name
    /// the leaf must carry set (``TLSPeerTrust/expect(host:on:)``), `identity` presented if
    /// the server asks for a client certificate, ready for the handshake.
    ///
    /// - Throws: `TransportError` ``/Strata/TransportError/Kind/tls`` when OpenSSL cannot allocate
    ///   the session or refuses the identity, ``ServerTrustError`` when `host` cannot be checked.
    init(context: TLSClientContext, host: String, identity: TLSClientCredential?) throws {
        guard let ssl = context.makeSSL() else {
            throw TransportError(.tls, message: "OpenSSL cannot create a TLS session")
        }
        guard let input = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw TransportError(.tls, message: "OpenSSL cannot allocate memory BIOs")
        }
        guard let output = BIO_new(BIO_s_mem()) else {
            // Not yet handed to the SSL object, so SSL_free would not release it.
            BIO_free(input)
            SSL_free(ssl)
            throw TransportError(.tls, message: "OpenSSL cannot allocate memory BIOs")
        }
        // SSL_set_bio hands both BIOs to the SSL object: SSL_free releases them.
        SSL_set_bio(ssl, input, output)
        SSL_set_connect_state(ssl)
        self.ssl = ssl
        self.input = input
        self.output = output
        self.host = host
        // From here on deinit frees the SSL object, whatever throws.
        try identity?.install(on: ssl)
        try TLSPeerTrust.expect(host: host, on: ssl)
    }

    deinit {
        SSL_free(ssl)
    }

    // MARK: - Steps

    /// Runs the handshake as far as the ciphertext given so far allows.
    func handshake() -> Step {
        OpenSSLErrorQueue.clear()
        let result = SSL_do_handshake(ssl)
        return result == 1 ? .progressed(0) : step(after: result)
    }

    /// Decrypts into `buffer` what the ciphertext given so far holds.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Step {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return .progressed(0) }
        OpenSSLErrorQueue.clear()
        let count = SSL_read(ssl, base, Int32(clamping: buffer.count))
        return count > 0 ? .progressed(Int(count)) : step(after: count)
    }

    /// Encrypts `bytes` (all of them, or a part under OpenSSL's partial-write rules) into the
    /// outgoing ciphertext.
    func write(_ bytes: UnsafeRawBufferPointer) -> Step {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return .progressed(0) }
        OpenSSLErrorQueue.clear()
        let written = SSL_write(ssl, base, Int32(clamping: bytes.count))
        return written > 0 ? .progressed(Int(written)) : step(after: written)
    }

    private func step(after result: Int32) -> Step {
        let error = SSL_get_error(ssl, result)
        switch error {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        case SSL_ERROR_ZERO_RETURN: return .closed
        default: return .failed(code: error)
        }
    }

    // MARK: - Ciphertext

    /// How many ciphertext bytes wait to be sent.
    var pendingCiphertext: Int { Int(BIO_ctrl_pending(output)) }

    /// Moves waiting ciphertext into `buffer`; returns how many bytes (0 when none wait).
    func takeCiphertext(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard pendingCiphertext > 0 else { return 0 }
        let count = BIO_read(output, buffer.baseAddress, Int32(clamping: buffer.count))
        return max(Int(count), 0)
    }

    /// Hands ciphertext received from the peer to OpenSSL.
    ///
    /// - Throws: `TransportError` ``/Strata/TransportError/Kind/tls`` when OpenSSL refuses the bytes.
    func giveCiphertext(_ bytes: UnsafeRawBufferPointer) throws(TransportError) {
        guard BIO_write(input, bytes.baseAddress, Int32(clamping: bytes.count)) == Int32(clamping: bytes.count) else {
            throw TransportError(.tls, message: "OpenSSL refused \(bytes.count) received bytes")
        }
    }

    // MARK: - What the session knows

    /// Whether the peer sent its close_notify alert: its end of the stream is authenticated.
    var receivedCloseNotify: Bool {
        SSL_get_shutdown(ssl) & Int32(SSL_RECEIVED_SHUTDOWN) != 0
    }

    /// The protocol version negotiated, such as `TLSv1.3`.
    var protocolVersion: String {
        guard let name = SSL_get_version(ssl) else { return "unknown" }
        return String(cString: name)
    }

    /// The ALPN protocol the server selected, such as `h2`; nil when it selected none.
    var selectedProtocol: String? {
        var selected: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &selected, &length)
        guard let selected, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: selected, count: Int(length)), as: UTF8.self)
    }

    /// The chain the evaluator must see after a completed handshake (see
    /// ``TLSPeerTrust/chainToEvaluate(on:host:roots:)``).
    ///
    /// - Throws: ``ServerTrustError`` when verification failed or no verified chain exists.
    func chainToEvaluate(roots: TrustRoots) throws -> [Certificate] {
        try TLSPeerTrust.chainToEvaluate(on: ssl, host: host, roots: roots)
    }

    // MARK: - Failures (read right after the failed step, on its thread)

    /// The error of a failed handshake step: the certificate OpenSSL refused
    /// (``ServerTrustError``), or a `TransportError` ``/Strata/TransportError/Kind/tls`` (with a
    /// ``ClientAuthenticationError`` as `underlying` when the server refused our certificate).
    ///
    /// - Parameters:
    ///   - code: The failed step's `SSL_get_error` code (nil when the peer closed the session),
    ///     named when OpenSSL queued nothing.
    ///   - peer: The peer's address, for the message.
    func handshakeFailure(code: Int32?, peer: String) -> any Error {
        let clientAuthentication = clientAuthenticationFailure()
        let reason = OpenSSLErrorQueue.drain(
            fallback: code.map { "TLS handshake failed (SSL error \($0))" }
                ?? "the server closed the TLS session during the handshake")
        if let trustFailure = X509VerifyResult.error(code: SSL_get_verify_result(ssl), host: host) {
            return trustFailure
        }
        if let clientAuthentication {
            return TransportError(.tls, message: clientAuthentication.description, underlying: clientAuthentication)
        }
        return TransportError(.tls, message: "TLS handshake with \(peer) failed: \(reason)")
    }

    /// The TLS failure of a read or write. A TLS 1.3 server checks the client certificate after
    /// the client's handshake is complete, so its refusal arrives here, as an alert.
    func failure(doing activity: String, peer: String) -> TransportError {
        if let clientAuthentication = clientAuthenticationFailure() {
            OpenSSLErrorQueue.clear()
            return TransportError(.tls, message: clientAuthentication.description, underlying: clientAuthentication)
        }
        return TransportError(
            .tls,
            message: "TLS failure \(activity) \(peer): "
                + OpenSSLErrorQueue.drain(fallback: "the TLS session failed"))
    }

    /// The client-certificate refusal that the alert in the error queue means, if it is one.
    private func clientAuthenticationFailure() -> ClientAuthenticationError? {
        guard let alert = TLSAlert.received() else { return nil }
        // The certificate this session presents, if any (a reference it keeps: not freed here).
        let presented = SSL_get_certificate(ssl).map { X509Certificate(retaining: $0).subject() }
        // A client sees the CA list of a TLS 1.2 CertificateRequest only if the server sent one.
        return alert.clientAuthenticationError(
            host: host, presented: presented,
            certificateRequested: SSL_get_client_CA_list(ssl) != nil)
    }
}
