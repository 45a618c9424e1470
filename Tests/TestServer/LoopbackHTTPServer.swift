#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Strata

/// A small HTTP/1.1 server on 127.0.0.1 for this package's own tests.
///
/// It listens on a port the OS chooses, answers each request with the first matching route (or
/// 404), records every request, and counts connections so keep-alive can be asserted. Responses
/// can be delayed, can close the connection, or can be raw bytes for malformed-response tests.
/// Each connection is served on its own thread; nothing here runs on Swift's cooperative pool.
public final class LoopbackHTTPServer: Sendable {
    /// A request as the server received it.
    public struct Request: Sendable {
        /// The method token, such as `GET`.
        public var method: String
        /// The request target: path and query, such as `/search?q=a%2Bb`.
        public var target: String
        /// Header fields in the order received.
        public var headers: [(name: String, value: String)]
        /// The request body.
        public var body: Data
        /// The common name of the client certificate presented on the request's connection (a
        /// TLS server requiring client certificates), nil when none was.
        public var clientCertificateName: String? = nil

        /// The path without the query.
        public var path: String { String(target.prefix { $0 != "?" }) }
        /// The raw (still percent-encoded) query, or `nil`.
        public var query: String? { target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) } }
        /// The first value of a header, compared case-insensitively.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// What the server sends back.
    public struct Response: Sendable {
        /// The status code.
        public var status: Int
        /// Header fields; `Content-Length` is added unless `chunked` or present.
        public var headers: [(name: String, value: String)]
        /// The body.
        public var body: Data
        /// How long to wait before answering. The wait ends early when the server stops.
        public var delay: Duration
        /// Close the connection after answering.
        public var closeConnection: Bool
        /// Send these bytes verbatim instead of a formatted response, then close.
        public var raw: Data?
        /// After sending `raw`, abort the connection with a TCP reset (RST) instead of closing it.
        public var resetsConnection = false
        /// Send `raw` after its first `dripAfter` bytes one byte at a time, this long apart (a
        /// slow-drip server); nil sends it at once.
        public var dripInterval: Duration?
        /// How many leading bytes of `raw` go out at once before the drip starts.
        public var dripAfter = 0
        /// Writes the body after the head, as the test scripts it (waiting for the test's signals,
        /// generating bytes instead of holding them); `write` returns false once the client is
        /// gone. The head gets no `Content-Length`: give one, or `Transfer-Encoding: chunked`
        /// (and write the chunks), or set `closeConnection` for a body the close ends.
        public var writer: (@Sendable (_ write: (Data) -> Bool) -> Void)?

        /// Creates a response.
        public init(
            status: Int = 200, headers: [(name: String, value: String)] = [], body: Data = Data(),
            delay: Duration = .zero, closeConnection: Bool = false
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.delay = delay
            self.closeConnection = closeConnection
        }

        /// Creates a response with a UTF-8 text body.
        public init(
            status: Int = 200, headers: [(name: String, value: String)] = [], text: String,
            delay: Duration = .zero, closeConnection: Bool = false
        ) {
            self.init(
                status: status, headers: headers, body: Data(text.utf8), delay: delay,
                closeConnection: closeConnection)
        }

        /// A response made of raw bytes, sent as is; the connection closes after them.
        public static func raw(_ bytes: Data) -> Response {
            var response = Response()
            response.raw = bytes
            return response
        }

        /// A response made of raw text, sent as is; the connection closes after it.
        public static func raw(_ text: String) -> Response { raw(Data(text.utf8)) }

        /// Sends `head` at once, then `body` one byte every `interval`, then closes: a server
        /// that keeps a request alive by trickling. The drip ends early when the server stops or
        /// the client goes away.
        public static func drip(head: String, body: String, every interval: Duration) -> Response {
            var response = raw(Data((head + body).utf8))
            response.dripInterval = interval
            response.dripAfter = head.utf8.count
            return response
        }

        /// Sends the head, then lets `writer` write the body (see ``writer``).
        public static func streamed(
            status: Int = 200, headers: [(name: String, value: String)],
            closeConnection: Bool = false,
            writer: @escaping @Sendable (_ write: (Data) -> Bool) -> Void
        ) -> Response {
            var response = Response(status: status, headers: headers, closeConnection: closeConnection)
            response.writer = writer
            return response
        }

        /// Sends `text` as is, then resets the connection (RST), as a crashing peer would.
        public static func reset(after text: String) -> Response {
            var response = raw(Data(text.utf8))
            response.resetsConnection = true
            return response
        }
    }

    /// Answers one request.
    public typealias Handler = @Sendable (Request) -> Response

    private struct Route {
        var method: String?
        var path: String
        var handler: Handler
    }

    private struct State {
        var routes: [Route] = []
        var requests: [Request] = []
        var recordsRequests = true
        var requestTotal = 0
        var connections = 0
        var rejectedChannels = 0
        var clients: Set<Int32> = []
        var stopped = false
    }

    private let listener: Int32
    /// The port the server listens on.
    public let port: Int
    private let state = LockedValue(State())
    private let stopSignal = DispatchSemaphore(value: 0)

    private let greeting: Data?
    private let makeChannel: (@Sendable (Int32) -> (any LoopbackByteChannel)?)?
    private let session: (@Sendable (any LoopbackByteChannel) -> Void)?

    /// Starts a server on 127.0.0.1 with an OS-chosen port.
    ///
    /// - Parameter greeting: Bytes written as soon as a connection is accepted, after which the
    ///   connection is closed without reading a request: a server that speaks the wrong protocol.
    public convenience init(greeting: Data? = nil) throws {
        try self.init(greeting: greeting, channel: nil)
    }

    /// Starts a server whose connections carry their bytes through a channel made per accepted
    /// socket (a TLS session, for example), on that connection's thread.
    ///
    /// - Parameters:
    ///   - ipv6: Listen on `::1` instead of `127.0.0.1`.
    ///   - channel: Wraps an accepted socket; `nil` rejects the connection (a failed TLS
    ///     handshake), which is counted in ``rejectedChannelCount`` and never reads a request.
    public convenience init(ipv6: Bool = false, channel: @escaping @Sendable (Int32) -> (any LoopbackByteChannel)?) throws {
        try self.init(greeting: nil, channel: channel, ipv6: ipv6)
    }

    /// Starts a server that hands each connection's channel to `session` instead of reading
    /// HTTP/1.1 requests: for servers speaking another protocol (HTTP/2 scripts).
    public convenience init(
        channel: @escaping @Sendable (Int32) -> (any LoopbackByteChannel)?,
        session: @escaping @Sendable (any LoopbackByteChannel) -> Void
    ) throws {
        try self.init(greeting: nil, channel: channel, session: session)
    }

    private init(
        greeting: Data?, channel: (@Sendable (Int32) -> (any LoopbackByteChannel)?)?,
        session: (@Sendable (any LoopbackByteChannel) -> Void)? = nil, ipv6: Bool = false
    ) throws {
        self.greeting = greeting
        self.makeChannel = channel
        self.session = session
        let (fd, port) = try ipv6 ? Self.listen6() : Self.listen4()
        listener = fd
        self.port = port
        let threads = Threads(
            listener: fd, state: state, stopSignal: stopSignal, greeting: greeting, makeChannel: channel,
            session: session)
        Thread { threads.acceptLoop() }.start()
    }

    deinit { stop() }

    /// A listening socket on 127.0.0.1 with an OS-chosen port.
    private static func listen4() throws -> (Int32, Int) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let fd = try bindAndListen(AF_INET, &address)
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A listening socket on ::1 with an OS-chosen port.
    private static func listen6() throws -> (Int32, Int) {
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        let fd = try bindAndListen(AF_INET6, &address)
        return (fd, Int(UInt16(bigEndian: address.sin6_port)))
    }

    /// Binds `address` (port 0), listens, and writes the bound address back into it.
    private static func bindAndListen<Address>(_ family: Int32, _ address: inout Address) throws -> Int32 {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServerError.socket(errno) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let size = socklen_t(MemoryLayout<Address>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            let failure = errno
            close(fd)
            throw ServerError.socket(failure)
        }
        var length = size
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return fd
    }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The absolute URL for a path on this server.
    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Adds a route. Routes are matched in the order added; `method` `nil` matches any method.
    public func route(_ path: String, method: String? = nil, handler: @escaping Handler) {
        state.withLock { $0.routes.append(Route(method: method, path: path, handler: handler)) }
    }

    /// Adds a route that always gives the same response.
    public func route(_ path: String, method: String? = nil, response: Response) {
        route(path, method: method) { _ in response }
    }

    /// Every request received so far, in order (while ``recordsRequests``).
    public var requests: [Request] { state.withLock { $0.requests } }

    /// Whether ``requests`` keeps every request (the default). A soak turns it off, so the
    /// server's memory does not grow with the run; ``requestCount`` counts either way.
    public var recordsRequests: Bool {
        get { state.withLock { $0.recordsRequests } }
        set { state.withLock { $0.recordsRequests = newValue } }
    }

    /// How many requests were received.
    public var requestCount: Int { state.withLock { $0.requestTotal } }

    /// How many connections were accepted.
    public var connectionCount: Int { state.withLock { $0.connections } }

    /// How many accepted connections the channel factory rejected (failed TLS handshakes).
    public var rejectedChannelCount: Int { state.withLock { $0.rejectedChannels } }

    /// Shuts down every open connection but keeps listening, as a server closing idle
    /// keep-alive connections does.
    public func dropConnections() {
        let clients = state.withLock { $0.clients }
        for client in clients { shutdown(client, Int32(SHUT_RDWR)) }
    }

    /// Stops listening and closes every open connection.
    public func stop() {
        let clients: Set<Int32>? = state.withLock { state in
            guard !state.stopped else { return nil }
            state.stopped = true
            return state.clients
        }
        guard let clients else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for client in clients { shutdown(client, Int32(SHUT_RDWR)) }
        for _ in 0..<64 { stopSignal.signal() }
    }

    /// What the accept thread and the connection threads use. They hold this, never the server,
    /// so a server a test lets go of is deinitialized (which stops it) even while a thread waits
    /// in accept() or on an idle keep-alive connection. Otherwise every server not stopped by hand
    /// would live, with its threads and every request it recorded, until the process exits.
    private struct Threads: Sendable {
        let listener: Int32
        let state: LockedValue<State>
        let stopSignal: DispatchSemaphore
        let greeting: Data?
        let makeChannel: (@Sendable (Int32) -> (any LoopbackByteChannel)?)?
        let session: (@Sendable (any LoopbackByteChannel) -> Void)?

        var isStopped: Bool { state.withLock { $0.stopped } }

        func acceptLoop() {
            while !isStopped {
                let client = accept(listener, nil, nil)
                guard client >= 0 else {
                    // A client that gave up before it was accepted (ECONNABORTED) or a signal
                    // ends one accept, not the server; the closed listener (stop()) ends it.
                    if errno == EINTR || errno == ECONNABORTED || errno == EPROTO { continue }
                    return
                }
                let accepted = state.withLock { state -> Bool in
                    guard !state.stopped else { return false }
                    state.connections += 1
                    state.clients.insert(client)
                    return true
                }
                guard accepted else {
                    close(client)
                    return
                }
                Thread { serve(client) }.start()
            }
        }

        // Never inlined: scripts/network-instructions.sh takes away what runs under this
        // function, by its name, to count the client's instructions alone.
        @inline(never)
        private func serve(_ client: Int32) {
            var connection = SocketConnection(fd: client)
            defer {
                connection.finish()
                state.withLock { _ = $0.clients.remove(client) }
                close(client)
            }
            if let makeChannel {
                guard let channel = makeChannel(client) else {
                    state.withLock { $0.rejectedChannels += 1 }
                    return
                }
                connection = SocketConnection(fd: client, channel: channel)
                if let session { return session(channel) }
            }
            if let greeting {
                connection.write(greeting)
                return
            }
            while !isStopped {
                guard let request = connection.readRequest() else { return }
                let handler = state.withLock { state -> Handler? in
                    state.requestTotal += 1
                    if state.recordsRequests { state.requests.append(request) }
                    return state.routes.first { route in
                        (route.method == nil || route.method == request.method) && route.path == request.path
                    }?.handler
                }
                let response = handler?(request) ?? Response(status: 404, text: "no route for \(request.method) \(request.path)")
                if response.delay > .zero, stopSignal.wait(timeout: .now() + response.delay.seconds) == .success { return }
                if let raw = response.raw, let interval = response.dripInterval {
                    guard connection.write(raw.prefix(response.dripAfter)) else { return }
                    for byte in raw.dropFirst(response.dripAfter) {
                        guard connection.write(Data([byte])), stopSignal.wait(timeout: .now() + interval.seconds) != .success
                        else { return }
                    }
                    return
                }
                if let raw = response.raw {
                    connection.write(raw)
                    if response.resetsConnection { connection.abortWithReset() }
                    return
                }
                let keepAlive = !response.closeConnection && request.header("Connection")?.lowercased() != "close"
                connection.write(LoopbackHTTPServer.format(response, keepAlive: keepAlive, head: request.method == "HEAD"))
                if let writer = response.writer {
                    var gone = false
                    writer { data in
                        gone = gone || !connection.write(data)
                        return !gone
                    }
                    if gone { return }
                }
                if !keepAlive { return }
            }
        }
    }

    fileprivate static func format(_ response: Response, keepAlive: Bool, head: Bool) -> Data {
        var text = "HTTP/1.1 \(response.status) \(reason(response.status))\r\n"
        var headers = response.headers
        let hasLength =
            response.writer != nil
            || headers.contains { $0.name.lowercased() == "content-length" || $0.name.lowercased() == "transfer-encoding" }
        let bodyless = response.status == 204 || response.status == 304 || (100..<200).contains(response.status)
        if !hasLength && !bodyless { headers.append(("Content-Length", String(response.body.count))) }
        if !keepAlive { headers.append(("Connection", "close")) }
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        var data = Data(text.utf8)
        if !head && !bodyless { data.append(response.body) }
        return data
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

/// A failure to start the loopback server.
public enum ServerError: Error {
    /// A socket call failed with this errno.
    case socket(Int32)
}

/// Where a server connection's bytes go: the plain socket, or a wrapper such as a TLS session.
/// Used by one connection thread at a time.
public protocol LoopbackByteChannel: AnyObject {
    /// Blocks until some bytes arrive and copies them into `buffer`; 0 at end of stream or on error.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int
    /// Sends all of `bytes`, or stops early when the peer is gone (never raising SIGPIPE).
    /// Returns false when the peer is gone.
    @discardableResult
    func send(_ bytes: UnsafeRawBufferPointer) -> Bool
    /// Called once before the socket closes (a TLS session sends its close_notify here).
    func finish()
    /// The common name of the certificate the client presented, nil when it presented none.
    var peerCertificateName: String? { get }
}

extension LoopbackByteChannel {
    /// Nothing to say before closing a plain socket.
    public func finish() {}
    /// A plain socket has no client certificate.
    public var peerCertificateName: String? { nil }
}

/// The socket itself as a channel: what a test server that scripts raw bytes reads and writes.
public final class PlainSocketChannel: LoopbackByteChannel {
    let fd: Int32

    public init(fd: Int32) { self.fd = fd }

    /// The bytes read, or 0 at the end of the stream or on an error. A call a signal
    /// interrupted is repeated: the suite's child processes send SIGCHLD to any of its threads,
    /// and reading EINTR as the end closed a connection before its request was read.
    public func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            return max(0, count)
        }
    }

    public func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
            let sent = socketSend(fd, base + offset, bytes.count - offset)
            if sent < 0 && errno == EINTR { continue }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }
}

/// Blocking reads and writes on one accepted socket, with a small parser for requests.
struct SocketConnection {
    let fd: Int32
    private let channel: any LoopbackByteChannel
    private var buffer = Data()
    static let maxHeaderBytes = 64 * 1024

    init(fd: Int32) { self.init(fd: fd, channel: PlainSocketChannel(fd: fd)) }

    init(fd: Int32, channel: any LoopbackByteChannel) {
        self.fd = fd
        self.channel = channel
    }

    mutating func readRequest() -> LoopbackHTTPServer.Request? {
        guard let headerEnd = readUntilHeaderEnd() else { return nil }
        let head = String(decoding: buffer[buffer.startIndex..<headerEnd], as: UTF8.self)
        buffer.removeSubrange(buffer.startIndex..<(headerEnd + 4))
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3 else { return nil }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var request = LoopbackHTTPServer.Request(
            method: String(requestLine[0]), target: String(requestLine[1]),
            headers: headers, body: Data())
        request.clientCertificateName = channel.peerCertificateName
        if request.header("Expect")?.lowercased() == "100-continue" {
            write(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        if request.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            guard let body = readChunkedBody() else { return nil }
            request.body = body
        } else if let length = request.header("Content-Length").flatMap(Int.init), length > 0 {
            while buffer.count < length { guard fill() else { return nil } }
            request.body = Data(buffer.prefix(length))
            buffer.removeFirst(length)
        }
        return request
    }

    private mutating func readChunkedBody() -> Data? {
        var body = Data()
        while true {
            guard let line = readLine(), let size = Int(line.split(separator: ";")[0], radix: 16) else { return nil }
            if size == 0 {
                while let trailer = readLine(), !trailer.isEmpty {}
                return body
            }
            while buffer.count < size + 2 { guard fill() else { return nil } }
            body.append(buffer.prefix(size))
            buffer.removeFirst(size + 2)
        }
    }

    private mutating func readLine() -> String? {
        while true {
            if let range = buffer.range(of: Data("\r\n".utf8)) {
                let line = String(decoding: buffer[buffer.startIndex..<range.lowerBound], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex..<range.upperBound)
                return line
            }
            guard fill() else { return nil }
        }
    }

    private mutating func readUntilHeaderEnd() -> Data.Index? {
        while true {
            if let range = buffer.range(of: Data("\r\n\r\n".utf8)) { return range.lowerBound }
            guard buffer.count < Self.maxHeaderBytes, fill() else { return nil }
        }
    }

    private mutating func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let count = chunk.withUnsafeMutableBytes { channel.receive(into: $0) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }

    /// Makes the coming `close` send RST instead of FIN (SO_LINGER with a zero timeout).
    func abortWithReset() {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// Writes `data`; false when the peer is gone.
    @discardableResult
    func write(_ data: Data) -> Bool {
        data.withUnsafeBytes { channel.send($0) }
    }

    /// Lets the channel end its session (TLS close_notify) before the socket closes.
    func finish() {
        channel.finish()
    }
}

extension Duration {
    /// The duration in seconds, for Dispatch timeouts.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// `send(2)` with `MSG_NOSIGNAL`, named apart from ``LoopbackByteChannel/send(_:)``.
private func socketSend(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.send(fd, bytes, count, Int32(MSG_NOSIGNAL))
    #else
    Darwin.send(fd, bytes, count, 0)
    #endif
}
