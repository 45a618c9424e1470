import Strata
import StrataConnect

/// A verified TLS client connection as a ``ByteStream``.
///
/// ``open(host:port:context:timeouts:deadline:connector:identity:opened:)`` connects, runs the handshake and returns the
/// stream before anything is written; the caller then takes ``chainToEvaluate(roots:)`` to its
/// evaluator and only after that sends a request. Blocking, for dedicated threads.
///
/// One exchange uses the stream at a time. `@unchecked Sendable` because the OpenSSL session inside
/// ``TLSSession`` (an ``SSLConnection``) is not thread-safe: every use of `session` happens inside `lock`, which makes
/// that discipline enforced rather than assumed (uncontended, it costs nanoseconds per call).
/// ``close()`` does not take the lock: it shuts the socket down, which makes a call blocked on
/// another thread return at once.
final class TLSStream: ByteStream, @unchecked Sendable {
    /// How long connecting and handshaking may take, and how long any later read or write may
    /// wait for progress.
    struct Timeouts: Sendable {
        var connect: Duration
        var handshake: Duration
        var idle: Duration
    }

    private let lock = LockedValue(())
    private let session: TLSSession
    private let socket: POSIXSocketStream
    /// The host the certificate was verified for.
    let host: String
    /// The TLS version negotiated, such as `TLSv1.3`.
    let protocolVersion: String
    /// The ALPN protocol the server selected (`h2`, `http/1.1`), or nil when it selected none.
    let selectedProtocol: String?

    private init(
        session: TLSSession, socket: POSIXSocketStream, host: String, protocolVersion: String,
        selectedProtocol: String?
    ) {
        self.session = session
        self.socket = socket
        self.host = host
        self.protocolVersion = protocolVersion
        self.selectedProtocol = selectedProtocol
    }

    /// The IP address the TCP connection went to (the proxy's, through a tunnel).
    var address: String { socket.address }
    /// How many addresses were tried to open the TCP connection, the one that connected included.
    var connectAttempts: Int { socket.attempts }

    /// Connects to `host:port` (through `connector`: directly or through its proxy's tunnel)
    /// and completes a TLS handshake in which OpenSSL verified the chain and the host name
    /// (unless the roots are ``TrustRoots/pinnedKeysOnly``), presenting `identity` if the server
    /// asks for a client certificate.
    ///
    /// - Parameters:
    ///   - opened: Called with the TCP connection as soon as it exists, so a canceller can close
    ///     it during the tunnel request and the handshake.
    ///   - deadline: The whole request's deadline; connect and handshake stop there too.
    /// - Throws: ``ServerTrustError`` for a certificate OpenSSL refused, `TransportError` otherwise
    ///   (a ``ProxyError`` or ``ClientAuthenticationError`` as its `underlying` when the proxy
    ///   or the server's client-certificate check refused).
    static func open(
        host: String, port: Int, context: TLSClientContext, timeouts: Timeouts,
        deadline: ContinuousClock.Instant, connector: OriginConnector = OriginConnector(),
        identity: ClientIdentity? = nil, opened: (POSIXSocketStream) -> Void = { _ in }
    ) throws -> TLSStream {
        let socket = try connector.connect(
            host: host, port: port, connectTimeout: timeouts.connect,
            idleTimeout: timeouts.idle, deadline: deadline, opened: opened)
        let session: TLSSession
        do {
            let connection = try SSLConnection(context: context, host: host, identity: identity?.credential)
            session = TLSSession(connection: connection, socket: socket)
            try session.handshake(
                offering: context.protocols,
                deadline: min(deadline, ContinuousClock.now + timeouts.handshake))
        } catch {
            socket.close()
            throw error
        }
        let version = session.protocolVersion
        return TLSStream(
            session: session, socket: socket, host: host, protocolVersion: version,
            selectedProtocol: session.selectedProtocol)
    }

    /// The chain the evaluator must see: OpenSSL's verified chain, leaf first (or just the leaf
    /// for ``TrustRoots/pinnedKeysOnly``).
    ///
    /// - Throws: ``ServerTrustError`` when verification failed or no verified chain exists.
    func chainToEvaluate(roots: TrustRoots) throws -> [Certificate] {
        try lock.withLock { _ in
            try session.connection.chainToEvaluate(roots: roots)
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant) throws(TransportError) {
        try lock.withLock { (_) throws(TransportError) in
            try session.write(bytes, deadline: deadline)
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant) throws(TransportError) -> Int {
        try lock.withLock { (_) throws(TransportError) in
            try session.read(into: buffer, deadline: deadline)
        }
    }

    /// Decrypts what has already arrived into `buffer`: the bytes read, 0 at the end of the
    /// stream, `nil` when a read would have to wait for the server.
    func readWithoutWaiting(into buffer: UnsafeMutableRawBufferPointer) throws(TransportError) -> Int? {
        switch try readAvailable(into: buffer) {
        case .bytes(let count): count
        case .closed: 0
        case .wouldBlock: nil
        }
    }

    /// Whether the idle connection can carry another request (see ``TLSSession/isIdleAndOpen()``).
    var isIdleAndOpen: Bool {
        lock.withLock { _ in session.isIdleAndOpen() }
    }

    func close() {
        socket.close()
    }

    /// Whether the server's close_notify arrived (RFC 8446 §6.1); without it, an end of stream
    /// may be an attacker cutting the connection.
    var endOfStreamIsAuthenticated: Bool {
        lock.withLock { _ in session.receivedCloseNotify }
    }

    // MARK: - Without waiting (for a connection's event loop; see ``TLSSession``)

    /// The socket's descriptor, for the event loop's `poll`.
    var descriptor: Int32 { socket.descriptor }

    /// Decrypts whatever has arrived into `buffer`, without waiting.
    func readAvailable(into buffer: UnsafeMutableRawBufferPointer) throws(TransportError) -> TLSSession.Available {
        try lock.withLock { (_) throws(TransportError) in try session.readAvailable(into: buffer) }
    }

    /// Encrypts `bytes` into the outgoing ciphertext; ``flushAvailable()`` sends it.
    func encrypt(_ bytes: UnsafeRawBufferPointer) throws(TransportError) {
        try lock.withLock { (_) throws(TransportError) in try session.encrypt(bytes) }
    }

    /// Sends waiting ciphertext as far as the socket takes it now; returns whether all went.
    func flushAvailable() throws(TransportError) -> Bool {
        try lock.withLock { (_) throws(TransportError) in try session.flushAvailable() }
    }

    /// How much ciphertext waits to be sent.
    var pendingOutputBytes: Int {
        lock.withLock { _ in session.pendingOutputBytes }
    }
}
