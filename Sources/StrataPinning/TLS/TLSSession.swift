import Strata
import StrataConnect

/// One TLS client session over a connected socket: it steps the OpenSSL state machine in
/// ``SSLConnection`` and moves the ciphertext between its memory BIOs and ``POSIXSocketStream``,
/// so sends use `MSG_NOSIGNAL` (a dead peer is an error, never SIGPIPE), every wait has a
/// timeout, and ``POSIXSocketStream/close()`` from another thread ends a blocked call. OpenSSL
/// only ever sees memory, and this file makes no OpenSSL call.
///
/// Not thread-safe: ``TLSStream`` keeps it behind a mutex.
final class TLSSession {
    /// Ciphertext moved per step; 64 KiB holds four full TLS records (RFC 8446 §5.1: 2^14 plaintext).
    static let scratchSize = 64 * 1024

    /// The OpenSSL session this one steps.
    let connection: SSLConnection
    let socket: POSIXSocketStream
    /// The host the connection is for (its certificate is verified for it), for error messages.
    var host: String { connection.host }
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

    /// Drives `connection` (a fresh session for the host it names) over a connected `socket`.
    init(connection: SSLConnection, socket: POSIXSocketStream) {
        self.connection = connection
        self.socket = socket
        scratch = .allocate(byteCount: Self.scratchSize, alignment: 16)
    }

    deinit {
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
            switch connection.handshake() {
            case .progressed:
                try flush(deadline: deadline)
                return try checkALPN(offered: protocols)
            case .wantRead:
                try flush(deadline: deadline)
                guard try fill(deadline: deadline) else {
                    throw TransportError(.connectionLost, message: "\(socket.peer) closed the connection during the TLS handshake")
                }
            case .wantWrite:
                try flush(deadline: deadline)
            case .closed:
                throw handshakeFailure(code: nil, deadline: deadline)
            case .failed(let code):
                throw handshakeFailure(code: code, deadline: deadline)
            }
        }
    }

    /// The failed handshake's error, after letting the server see our alert (the connection
    /// is over either way).
    private func handshakeFailure(code: Int32?, deadline: ContinuousClock.Instant) -> any Error {
        let failure = connection.handshakeFailure(code: code, peer: socket.peer)
        try? flush(deadline: deadline)
        return failure
    }

    /// Whether the server sent its close_notify alert: its end of the stream is authenticated.
    var receivedCloseNotify: Bool { connection.receivedCloseNotify }

    /// The protocol version negotiated, such as `TLSv1.3`.
    var protocolVersion: String { connection.protocolVersion }

    /// Reads decrypted bytes into `buffer`; 0 means the server closed the connection, with or
    /// without a TLS close_notify (see ``receivedCloseNotify``).
    func read(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant) throws(TransportError) -> Int {
        guard !buffer.isEmpty else { return 0 }
        while true {
            switch connection.read(into: buffer) {
            case .progressed(let count):
                awaitingReply = false
                return count
            case .closed:
                return 0
            case .wantRead:
                try flush(deadline: deadline)
                if awaitingReply {
                    awaitingReply = false
                    try socket.waitUntilReadable(deadline: deadline)
                }
                guard try fill(deadline: deadline) else { return 0 }
            case .wantWrite:
                try flush(deadline: deadline)
            case .failed:
                throw connection.failure(doing: "reading from", peer: socket.peer)
            }
        }
    }

    /// Encrypts and sends every byte of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant) throws(TransportError) {
        var offset = 0
        while offset < bytes.count {
            // A bounded piece per step keeps the output BIO (and memory) small for large bodies.
            let piece = min(bytes.count - offset, Self.scratchSize / 2)
            switch connection.write(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + piece])) {
            case .progressed(let written):
                offset += written
                try flush(deadline: deadline)
            case .wantRead:
                guard try fill(deadline: deadline) else {
                    throw TransportError(.connectionLost, message: "\(socket.peer) closed the connection while the request was written")
                }
            case .wantWrite:
                try flush(deadline: deadline)
            case .closed:
                throw TransportError(.connectionLost, message: "\(socket.peer) closed the TLS session while the request was written")
            case .failed:
                throw connection.failure(doing: "writing to", peer: socket.peer)
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
            let step = withUnsafeMutableBytes(of: &probe) { connection.read(into: $0) }
            guard step == .wantRead else { return false }
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
        while true {
            let count = connection.takeCiphertext(into: scratch)
            guard count > 0 else { return }
            try socket.write(UnsafeRawBufferPointer(rebasing: scratch[0..<count]), deadline: deadline)
        }
    }

    /// Moves what the socket has (waiting for some) into the input BIO. Returns false at end of stream.
    private func fill(deadline: ContinuousClock.Instant) throws(TransportError) -> Bool {
        let count = try socket.read(into: scratch, deadline: deadline)
        guard count > 0 else { return false }
        try connection.giveCiphertext(UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
        return true
    }

    /// Records the protocol the server selected; one we did not offer means the server speaks
    /// something this client cannot (OpenSSL checks this too; the check here does not rely on it).
    private func checkALPN(offered: [String]) throws(TransportError) {
        guard let name = connection.selectedProtocol else { return }
        guard offered.contains(name) else {
            throw TransportError(
                .tls,
                message: "\(socket.peer) selected ALPN protocol '\(name)', which was not offered "
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
        guard !buffer.isEmpty else { return .wouldBlock }
        while true {
            switch connection.read(into: buffer) {
            case .progressed(let count):
                return .bytes(count)
            case .closed:
                return .closed
            case .wantRead:
                guard let received = try socket.readWithoutWaiting(into: scratch) else { return .wouldBlock }
                guard received > 0 else { return .closed }
                try connection.giveCiphertext(UnsafeRawBufferPointer(rebasing: scratch[0..<received]))
            case .wantWrite, .failed:
                throw connection.failure(doing: "reading from", peer: socket.peer)
            }
        }
    }

    /// Encrypts `bytes` into the outgoing ciphertext (memory only: ``flushAvailable()`` sends it).
    func encrypt(_ bytes: UnsafeRawBufferPointer) throws(TransportError) {
        var offset = 0
        while offset < bytes.count {
            // A memory BIO takes everything, so a write completes unless the session failed.
            let piece = min(bytes.count - offset, Self.scratchSize / 2)
            guard case .progressed(let written) = connection.write(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + piece])),
                written > 0
            else {
                throw connection.failure(doing: "writing to", peer: socket.peer)
            }
            offset += written
        }
    }

    /// How much ciphertext waits to be sent.
    var pendingOutputBytes: Int { unsent.count + connection.pendingCiphertext }

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
            let count = connection.takeCiphertext(into: scratch)
            guard count > 0 else { return true }
            let chunk = UnsafeRawBufferPointer(rebasing: scratch[0..<count])
            let sent = try socket.sendAvailable(chunk)
            if sent < chunk.count { unsent.append(contentsOf: chunk[sent...]) }
        }
    }
}
