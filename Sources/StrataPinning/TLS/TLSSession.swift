import COpenSSL
import Strata
import StrataConnect

/// One client `SSL *` driven through two memory BIOs, so every byte to and from the network goes
/// through ``POSIXSocketStream``: sends use `MSG_NOSIGNAL` (a dead peer is an error, never
/// SIGPIPE), every wait has a timeout, and ``POSIXSocketStream/close()`` from another thread
/// ends a blocked call. OpenSSL only ever sees memory.
///
/// Not thread-safe: ``TLSStream`` keeps it behind a mutex.
final class TLSSession {
    /// Ciphertext moved per step; 64 KiB holds four full TLS records (RFC 8446 §5.1: 2^14 plaintext).
    static let scratchSize = 64 * 1024

    let ssl: OpaquePointer
    let socket: POSIXSocketStream
    /// The host the connection is for (its certificate is verified for it), for error messages.
    let host: String
    private let input: OpaquePointer
    private let output: OpaquePointer
    /// One buffer for ciphertext in both directions, reused for the connection's life (never
    /// per read): steps are sequential, so input and output never need it at once.
    private let scratch: UnsafeMutableRawBufferPointer
    /// Ciphertext taken from the output BIO that the socket did not take yet (non-blocking sends only).
    private var unsent: [UInt8] = []
    /// The ALPN protocol the server selected, such as `h2`; nil when it selected none.
    private(set) var selectedProtocol: String?
    /// Whether everything written since the last read was sent and nothing was received since:
    /// the next read waits for the socket before asking it, saving a `recv` that could only
    /// fail with `EAGAIN` (the server cannot have answered a request the moment it was sent).
    private var awaitingReply = false

    /// Wraps a fresh `ssl` (taking ownership) around a connected `socket` to `host`.
    ///
    /// - Throws: `TransportError` ``/Strata/TransportError/Kind/tls`` when OpenSSL cannot allocate the BIOs.
    init(ssl: OpaquePointer, socket: POSIXSocketStream, host: String) throws(TransportError) {
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
        self.socket = socket
        self.host = host
        self.input = input
        self.output = output
        scratch = .allocate(byteCount: Self.scratchSize, alignment: 16)
    }

    deinit {
        SSL_free(ssl)
        scratch.deallocate()
    }

    /// Runs the handshake to completion.
    ///
    /// - Throws: ``ServerTrustError`` when OpenSSL's verification (chain, dates, host name) failed,
    ///   `TransportError` ``/Strata/TransportError/Kind/tls`` for any other TLS failure (protocol version,
    ///   an alert from the server, with a ``ClientAuthenticationError`` as `underlying` when it
    ///   is about the client certificate, an ALPN protocol not in `protocols`), or the socket's
    ///   `TransportError` (timeout, reset, close).
    func handshake(offering protocols: [String], deadline: ContinuousClock.Instant) throws {
        while true {
            OpenSSLErrorQueue.clear()
            let result = SSL_do_handshake(ssl)
            if result == 1 {
                try flush(deadline: deadline)
                return try checkALPN(offered: protocols)
            }
            let error = SSL_get_error(ssl, result)
            if error == SSL_ERROR_WANT_READ {
                try flush(deadline: deadline)
                guard try fill(deadline: deadline) else {
                    throw TransportError(.connectionLost, message: "\(socket.peer) closed the connection during the TLS handshake")
                }
                continue
            }
            let clientAuthentication = clientAuthenticationFailure()
            let reason = OpenSSLErrorQueue.drain(fallback: "TLS handshake failed (SSL error \(error))")
            // Let the server see our alert; the connection is over either way.
            try? flush(deadline: deadline)
            if let trustFailure = X509VerifyResult.error(code: SSL_get_verify_result(ssl), host: host) {
                throw trustFailure
            }
            if let clientAuthentication {
                throw TransportError(.tls, message: clientAuthentication.description, underlying: clientAuthentication)
            }
            throw TransportError(.tls, message: "TLS handshake with \(socket.peer) failed: \(reason)")
        }
    }

    /// Whether the server sent its close_notify alert: its end of the stream is authenticated.
    var receivedCloseNotify: Bool {
        SSL_get_shutdown(ssl) & Int32(SSL_RECEIVED_SHUTDOWN) != 0
    }

    /// The protocol version negotiated, such as `TLSv1.3`.
    var protocolVersion: String {
        guard let name = SSL_get_version(ssl) else { return "unknown" }
        return String(cString: name)
    }

    /// Reads decrypted bytes into `buffer`; 0 means the server closed the connection, with or
    /// without a TLS close_notify (see ``receivedCloseNotify``).
    func read(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant) throws(TransportError) -> Int {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        while true {
            OpenSSLErrorQueue.clear()
            let count = SSL_read(ssl, base, Int32(clamping: buffer.count))
            if count > 0 {
                awaitingReply = false
                return Int(count)
            }
            switch SSL_get_error(ssl, count) {
            case SSL_ERROR_ZERO_RETURN:
                return 0
            case SSL_ERROR_WANT_READ:
                try flush(deadline: deadline)
                if awaitingReply {
                    awaitingReply = false
                    try socket.waitUntilReadable(deadline: deadline)
                }
                guard try fill(deadline: deadline) else { return 0 }
            case SSL_ERROR_WANT_WRITE:
                try flush(deadline: deadline)
            default:
                throw failure(doing: "reading from")
            }
        }
    }

    /// Encrypts and sends every byte of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant) throws(TransportError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            // A bounded piece per step keeps the output BIO (and memory) small for large bodies.
            let piece = min(bytes.count - offset, Self.scratchSize / 2)
            OpenSSLErrorQueue.clear()
            let written = SSL_write(ssl, base + offset, Int32(piece))
            if written > 0 {
                offset += Int(written)
                try flush(deadline: deadline)
                continue
            }
            switch SSL_get_error(ssl, written) {
            case SSL_ERROR_WANT_READ:
                guard try fill(deadline: deadline) else {
                    throw TransportError(.connectionLost, message: "\(socket.peer) closed the connection while the request was written")
                }
            case SSL_ERROR_WANT_WRITE:
                try flush(deadline: deadline)
            case SSL_ERROR_ZERO_RETURN:
                throw TransportError(.connectionLost, message: "\(socket.peer) closed the TLS session while the request was written")
            default:
                throw failure(doing: "writing to")
            }
        }
        awaitingReply = true
    }

    /// Whether an idle connection can carry another request: nothing but TLS housekeeping
    /// (TLS 1.3 session tickets, which also make the socket readable) arrived since the last
    /// response. Application data (such as an unasked `408`), a close_notify, end of stream or
    /// any error means the server is done with it. Never blocks.
    func isIdleAndOpen() -> Bool {
        var probe: UInt8 = 0
        // Bounded: a server streaming housekeeping records forever is not worth keeping.
        for _ in 0..<16 {
            OpenSSLErrorQueue.clear()
            let count = SSL_read(ssl, &probe, 1)
            if count > 0 { return false }
            guard SSL_get_error(ssl, count) == SSL_ERROR_WANT_READ else { return false }
            guard socket.isReadable else { return true }
            do {
                guard try fill(deadline: .now) else { return false }
            } catch {
                return false
            }
        }
        return false
    }

    /// Sends everything OpenSSL has queued in the output BIO.
    private func flush(deadline: ContinuousClock.Instant) throws(TransportError) {
        while BIO_ctrl_pending(output) > 0 {
            let count = BIO_read(output, scratch.baseAddress, Int32(scratch.count))
            guard count > 0 else { return }
            try socket.write(UnsafeRawBufferPointer(rebasing: scratch[0..<Int(count)]), deadline: deadline)
        }
    }

    /// Moves what the socket has (waiting for some) into the input BIO. Returns false at end of stream.
    private func fill(deadline: ContinuousClock.Instant) throws(TransportError) -> Bool {
        let count = try socket.read(into: scratch, deadline: deadline)
        guard count > 0 else { return false }
        guard BIO_write(input, scratch.baseAddress, Int32(count)) == Int32(count) else {
            throw TransportError(.tls, message: "OpenSSL refused \(count) received bytes")
        }
        return true
    }

    /// The TLS failure of a read or write. A TLS 1.3 server checks the client certificate after
    /// the client's handshake is complete, so its refusal arrives here, as an alert.
    private func failure(doing activity: String) -> TransportError {
        if let clientAuthentication = clientAuthenticationFailure() {
            OpenSSLErrorQueue.clear()
            return TransportError(.tls, message: clientAuthentication.description, underlying: clientAuthentication)
        }
        return TransportError(.tls, message: "TLS failure \(activity) \(socket.peer): "
            + OpenSSLErrorQueue.drain(fallback: "the TLS session failed"))
    }

    /// The client-certificate refusal that the alert in the error queue means, if it is one.
    private func clientAuthenticationFailure() -> ClientAuthenticationError? {
        guard let alert = TLSAlert.received() else { return nil }
        // The certificate this session presents, if any (a reference it keeps: not freed here).
        let presented = SSL_get_certificate(ssl).map { X509Certificate(retaining: $0).subject() }
        // A client sees the CA list of a TLS 1.2 CertificateRequest only if the server sent one.
        return alert.clientAuthenticationError(host: host, presented: presented,
                                               certificateRequested: SSL_get_client_CA_list(ssl) != nil)
    }

    /// Records the protocol the server selected; one we did not offer means the server speaks
    /// something this client cannot (OpenSSL checks this too; the check here does not rely on it).
    private func checkALPN(offered: [String]) throws(TransportError) {
        var selected: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &selected, &length)
        guard let selected, length > 0 else { return }
        let name = String(decoding: UnsafeBufferPointer(start: selected, count: Int(length)), as: UTF8.self)
        guard offered.contains(name) else {
            throw TransportError(.tls, message: "\(socket.peer) selected ALPN protocol '\(name)', which was not offered "
                + "(offered: \(offered.joined(separator: ", ")))")
        }
        selectedProtocol = name
    }

    // MARK: - Without waiting (for a connection's event loop, which waits in one `poll`)

    /// What a read that never waits found.
    enum Available: Equatable {
        /// This many decrypted bytes were read.
        case bytes(Int)
        /// Nothing to read until the socket becomes readable.
        case wouldBlock
        /// The server closed the connection (close_notify or end of stream).
        case closed
    }

    /// Decrypts whatever has arrived into `buffer`, without waiting.
    func readAvailable(into buffer: UnsafeMutableRawBufferPointer) throws(TransportError) -> Available {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return .wouldBlock }
        while true {
            OpenSSLErrorQueue.clear()
            let count = SSL_read(ssl, base, Int32(clamping: buffer.count))
            if count > 0 { return .bytes(Int(count)) }
            switch SSL_get_error(ssl, count) {
            case SSL_ERROR_ZERO_RETURN:
                return .closed
            case SSL_ERROR_WANT_READ:
                guard let received = try socket.receiveAvailable(into: scratch) else { return .wouldBlock }
                guard received > 0 else { return .closed }
                guard BIO_write(input, scratch.baseAddress, Int32(received)) == Int32(received) else {
                    throw TransportError(.tls, message: "OpenSSL refused \(received) received bytes")
                }
            default:
                throw failure(doing: "reading from")
            }
        }
    }

    /// Encrypts `bytes` into the outgoing ciphertext (memory only: ``flushAvailable()`` sends it).
    func encrypt(_ bytes: UnsafeRawBufferPointer) throws(TransportError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            OpenSSLErrorQueue.clear()
            // A memory BIO takes everything, so SSL_write completes unless the session failed.
            let written = SSL_write(ssl, base + offset, Int32(min(bytes.count - offset, Self.scratchSize / 2)))
            guard written > 0 else { throw failure(doing: "writing to") }
            offset += Int(written)
        }
    }

    /// How much ciphertext waits to be sent.
    var pendingOutputBytes: Int { unsent.count + Int(BIO_ctrl_pending(output)) }

    /// Sends the waiting ciphertext as far as the socket takes it now.
    ///
    /// - Returns: Whether everything was sent.
    func flushAvailable() throws(TransportError) -> Bool {
        while true {
            if !unsent.isEmpty {
                let socket = socket
                let outcome = unsent.withUnsafeBytes { bytes in
                    Result { () throws(TransportError) in try socket.sendAvailable(bytes) }
                }
                unsent.removeFirst(try outcome.get())
                guard unsent.isEmpty else { return false }
            }
            guard BIO_ctrl_pending(output) > 0 else { return true }
            let count = BIO_read(output, scratch.baseAddress, Int32(scratch.count))
            guard count > 0 else { return true }
            let chunk = UnsafeRawBufferPointer(rebasing: scratch[0..<Int(count)])
            let sent = try socket.sendAvailable(chunk)
            if sent < chunk.count { unsent.append(contentsOf: chunk[sent...]) }
        }
    }
}
