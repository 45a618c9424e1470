#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Strata

/// Answers one request; runs on the connection's own thread, so it may block briefly.
package typealias SandboxHandler = @Sendable (SandboxRequest) -> SandboxResponse

/// A small HTTP/1.1 server on 127.0.0.1, over TLS (OpenSSL, server side) when given a
/// ``ServerIdentity``: the demo's sandbox, and a base for the package's TLS test servers.
///
/// It listens on the port asked for (0: one the OS chooses), answers each request with the
/// first route matching its method and path (`404` otherwise, `405` for a known path with
/// another method), and keeps connections alive. Each connection is served on its own thread,
/// never Swift's cooperative pool; sends never raise SIGPIPE; every read is bounded by
/// ``ServerLimits``. The server stops when ``stop()`` is called or the value is released.
package final class SandboxServer: Sendable {
    /// The port the server listens on.
    package let port: Int
    /// `https` when serving TLS, `http` otherwise.
    package let scheme: String
    private let core: ServerCore

    /// Starts listening and accepting at once.
    ///
    /// - Parameters:
    ///   - identity: The certificate and key to present; `nil` serves plain HTTP.
    ///   - port: The port on 127.0.0.1; 0 lets the OS choose a free one.
    ///   - limits: Bounds on requests, connections and waits.
    /// - Throws: ``SandboxServerError`` when the port cannot be bound or OpenSSL refuses the identity.
    package init(identity: sending ServerIdentity?, port: Int = 0, limits: ServerLimits = ServerLimits()) throws(SandboxServerError) {
        var tls: ServerTLSContext?
        if let identity {
            do { tls = try ServerTLSContext(identity: identity) } catch { throw .tls(error) }
        }
        let listener = try ListeningSocket(port: port)
        self.port = listener.port
        scheme = tls == nil ? "http" : "https"
        core = ServerCore(listener: listener, tls: tls, limits: limits)
        let core = core
        // The threads hold the core, never this handle, so releasing the handle stops the server.
        Thread { core.acceptLoop() }.start()
    }

    deinit { stop() }

    /// `<scheme>://<host>:<port><path>`; the sandbox's certificate names `localhost` and `127.0.0.1`.
    package func url(_ path: String, host: String = "localhost") -> URL {
        URL(string: "\(scheme)://\(host):\(port)\(path)")!
    }

    /// Adds a route; routes are tried in the order added.
    ///
    /// - Parameters:
    ///   - method: The method it answers, such as `GET`; `HEAD` is answered by a `GET` route.
    ///   - path: The exact path, without the query; a final `*` matches any rest, as in `/v1/todos/*`.
    ///   - handler: Makes the response.
    package func route(_ method: String, _ path: String, handler: @escaping SandboxHandler) {
        core.routes.withLock { $0.append((method, path, handler)) }
    }

    /// How many connections were accepted so far.
    package var connectionCount: Int { core.state.withLock { $0.accepted } }

    /// Stops accepting, closes every open connection, and ends pending response delays. Idempotent.
    package func stop() { core.stop() }
}

/// The server's shared state, held by its accept and connection threads.
private final class ServerCore: Sendable {
    struct State {
        var stopped = false
        var listening = true
        var accepted = 0
        var open: Set<Int32> = []
    }

    let routes = LockedValue<[(method: String, path: String, handler: SandboxHandler)]>([])
    let state = LockedValue(State())
    private let listener: ListeningSocket
    private let tls: ServerTLSContext?
    private let limits: ServerLimits
    /// Wakes responses waiting out their delay when the server stops.
    private let delayWake = NSCondition()

    init(listener: ListeningSocket, tls: ServerTLSContext?, limits: ServerLimits) {
        self.listener = listener
        self.tls = tls
        self.limits = limits
    }

    func stop() {
        // Descriptors are shut down, opened into the set and closed only under the lock, so a
        // number is never shut down after its thread closed it (and the OS reused it elsewhere).
        // Shutting down (not closing) wakes each blocked thread, which then closes its own.
        let stopping = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.stopped = true
            if state.listening { listener.shutDown() }
            for descriptor in state.open { shutdown(descriptor, Int32(SHUT_RDWR)) }
            return true
        }
        guard stopping else { return }
        // Under the condition's lock: a waiter is either before its check (and sees `stopped`) or waiting.
        delayWake.lock()
        delayWake.broadcast()
        delayWake.unlock()
    }

    func acceptLoop() {
        // The loop ends when stopped, or when accept fails for good (then the server is stopped).
        defer {
            state.withLock { state in
                state.listening = false
                listener.release()
            }
            stop()
        }
        while let client = listener.nextConnection() {
            let admitted = state.withLock { state -> Bool in
                guard !state.stopped, state.open.count < limits.maxConnections else { return false }
                state.accepted += 1
                state.open.insert(client)
                return true
            }
            guard admitted else {
                close(client)
                if state.withLock({ $0.stopped }) { return }
                continue
            }
            Thread { [self] in serve(client) }.start()
        }
    }

    private func serve(_ descriptor: Int32) {
        defer {
            state.withLock { state in
                state.open.remove(descriptor)
                close(descriptor)
            }
        }
        let socket = SocketChannel(descriptor: descriptor, timeout: limits.socketTimeout)
        let channel: any ByteChannel
        if let tls {
            guard let session = tls.accept(over: socket) else { return }
            channel = session
        } else {
            channel = socket
        }
        var reader = RequestReader(channel: channel, limits: limits)
        while true {
            switch reader.next() {
            case .closed:
                return
            case .refused(let response):
                _ = send(response, on: channel, keepAlive: false, headOnly: false)
                return
            case .request(let request, let keepAlive):
                let response = respond(to: request)
                guard waitOut(response.delay),
                    send(response, on: channel, keepAlive: keepAlive, headOnly: request.method == "HEAD"),
                    keepAlive
                else { return }
            }
        }
    }

    private func respond(to request: SandboxRequest) -> SandboxResponse {
        let method = request.method == "HEAD" ? "GET" : request.method
        let routes = routes.withLock { $0 }
        let matching = routes.filter { Self.path($0.path, matches: request.path) }
        if let route = matching.first(where: { $0.method == method }) { return route.handler(request) }
        let allowed = matching.map(\.method)
        guard allowed.isEmpty else {
            return .json(#"{"error":"method_not_allowed"}"#, status: 405, headers: [("Allow", allowed.joined(separator: ", "))])
        }
        return .json(#"{"error":"not_found"}"#, status: 404)
    }

    private static func path(_ pattern: String, matches path: String) -> Bool {
        guard pattern.hasSuffix("*") else { return pattern == path }
        return path.hasPrefix(pattern.dropLast()) && path.count >= pattern.count
    }

    private func send(_ response: SandboxResponse, on channel: any ByteChannel, keepAlive: Bool, headOnly: Bool) -> Bool {
        response.serialized(keepAlive: keepAlive, headOnly: headOnly).withUnsafeBytes { channel.send($0) }
    }

    /// Waits `delay`, or less when the server stops; `false` when it stopped.
    private func waitOut(_ delay: Duration) -> Bool {
        guard delay > .zero else { return true }
        let deadline = Date(timeIntervalSinceNow: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
        delayWake.lock()
        defer { delayWake.unlock() }
        while !state.withLock({ $0.stopped }) {
            guard delayWake.wait(until: deadline) else { return true }
        }
        return false
    }
}
