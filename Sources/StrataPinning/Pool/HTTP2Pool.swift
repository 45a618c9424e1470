import Strata

/// The HTTP/2 side of the pool: which pinned hosts speak HTTP/2, their verified connections, and
/// the requests waiting for one.
///
/// New connections are always opened by the HTTP/1.1 pool's slots (connect, handshake, trust
/// check), each for a ``ConnectionAttempt`` that tells this pool what the host speaks once it is
/// known. When the server selects `h2`, ``adopt(_:from:of:)`` turns the verified TLS stream into
/// an ``HTTP2Connection`` on the slot's thread as the handshake ends, the slot's unit of the
/// process-wide ``ConnectionThreadLimit`` passing to it, and the attempt registers it here.
/// ``route(host:port:deadline:)`` then decides, per request:
/// - a stream on the oldest connection with room below the server's
///   SETTINGS_MAX_CONCURRENT_STREAMS (packing streams keeps one connection per host and lets
///   spare ones idle out);
/// - else a new connection, one at a time per host, up to `maxConnectionsPerHost` connections,
///   counting those winding down after a GOAWAY: each holds its thread and its unit of the
///   process-wide ``ConnectionThreadLimit`` until its last stream has ended, so a server that
///   sends GOAWAY after every first stream cannot make each request open another connection;
/// - else, at that limit, a stream beyond the server's limit on the least loaded connection,
///   which nghttp2 holds until a stream finishes;
/// - while the host's protocol is unknown and its first connection is being opened, a wait:
///   a burst of requests to a new host opens one connection, not one each;
/// - for a host that answered with HTTP/1.1 (and has no HTTP/2 connection that accepts streams),
///   the HTTP/1.1 pool, unless the host's HTTP/2 connections fill its places (the attempt could
///   turn out to be HTTP/2 again);
/// - else a wait for a connection to end, up to the request's deadline.
///
/// Waiters are served first come, first served whenever something changes (a connection is
/// registered or closes, an attempt fails, a host turns out to speak HTTP/1.1); a cancelled
/// waiter, or one whose deadline passed, leaves at once. A connection leaves the table as soon as
/// its thread has ended (``closed(_:)``) or its unit went to another connection
/// (``evictIdle()``). A host with no connection, attempt or waiter leaves the table, unless it answered over HTTP/1.1: that is remembered until the
/// HTTP/1.1 pool forgets the host (``forgetHTTP1(for:)``). Policy only: I/O happens on the
/// connections' threads.
final class HTTP2Pool: Sendable {
    /// Where a request goes.
    enum Route: Sendable {
        /// A stream claimed on this connection.
        case stream(HTTP2Connection)
        /// Open a new connection through the HTTP/1.1 pool (or take a kept one) for this attempt,
        /// which reports back exactly once.
        case connect(ConnectionAttempt)
    }

    /// The decision for one request, from a snapshot of the host (pure, for tests).
    enum Decision: Equatable {
        case use(Int)
        case useBeyondLimit(Int)
        case connect
        case http1
        case wait
    }

    /// A connection's state as the policy sees it.
    struct Load: Equatable {
        var reserved: Int
        var maxConcurrentStreams: Int
        var accepting: Bool
    }

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Route, any Error>
    }

    private struct Host {
        var connections: [HTTP2Connection] = []
        /// Connection attempts this pool asked for that have not reported back.
        var connecting = 0
        var speaksHTTP1 = false
        var speaksHTTP2 = false
        var waiters: [Waiter] = []

        /// Nothing worth an entry: no connection, attempt, waiter, or HTTP/1.1 answer to remember
        /// (an HTTP/2 answer is learned again by the next attempt at no cost).
        var isEmpty: Bool { connections.isEmpty && connecting <= 0 && waiters.isEmpty && !speaksHTTP1 }
    }

    private struct State {
        var hosts: [ConnectionPool.Key: Host] = [:]
        var nextWaiterID: UInt64 = 0
        var isShutDown = false
    }

    private let state = LockedValue(State())
    /// The most connections to one host and port.
    let maxConnectionsPerHost: Int
    /// What the connections share with the HTTP/1.1 pool's: response limits, the connection limit.
    private let settings: ConnectionSettings
    private let timing: HTTP2Multiplexer.Timing
    /// How long a connection stays open without streams.
    private let idleTimeout: Duration

    init(maxConnectionsPerHost: Int, settings: ConnectionSettings, timing: HTTP2Multiplexer.Timing, idleTimeout: Duration) {
        self.maxConnectionsPerHost = max(1, maxConnectionsPerHost)
        self.settings = settings
        self.timing = timing
        self.idleTimeout = idleTimeout
    }

    /// The policy: where the next request to a host goes, given its connections' loads.
    static func decide(
        loads: [Load], connecting: Int, speaksHTTP1: Bool, speaksHTTP2: Bool,
        maxConnections: Int
    ) -> Decision {
        let accepting = loads.indices.filter { loads[$0].accepting }
        // Every connection still listed holds a thread and a unit of the process-wide limit,
        // draining ones included: they all count, or GOAWAYs would let one host take every unit.
        let hasRoom = loads.count < maxConnections
        if speaksHTTP1, accepting.isEmpty { return hasRoom ? .http1 : .wait }
        if let roomy = accepting.first(where: { loads[$0].reserved < loads[$0].maxConcurrentStreams }) {
            return .use(roomy)
        }
        // The protocol is unknown while the first attempt runs: wait for it rather than race it.
        if connecting > 0, !speaksHTTP2 { return .wait }
        if connecting == 0, hasRoom { return .connect }
        if let least = accepting.min(by: { loads[$0].reserved < loads[$1].reserved }) { return .useBeyondLimit(least) }
        return .wait
    }

    /// How many streams a new connection to a host assumes its server accepts until the server's
    /// own SETTINGS arrive: the fewest its other connections to the host know of, at least one and
    /// at most the usual assumption. A second connection is opened when the first is full,
    /// usually with requests waiting for it; assuming 100 there would send a server that allows
    /// 2 a burst it refuses (REFUSED_STREAM, each one sent again).
    ///
    /// - Parameter learned: The limits of the host's other connections (each the server's
    ///   SETTINGS, or what that connection assumed before they arrived).
    static func assumedMaxConcurrentStreams(learned: [Int]) -> Int {
        let usual = HTTP2Multiplexer.assumedMaxConcurrentStreams
        guard let fewest = learned.min() else { return usual }
        return min(usual, max(1, fewest))
    }

    /// Where a request to `host:port` goes, waiting while the host's first connection is being
    /// opened (or every allowed connection is), but not past `deadline`.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while waiting;
    ///   `TransportError` ``/Strata/TransportError/Kind/timedOut`` when `deadline` passes first.
    func route(host: String, port: Int, deadline: ContinuousClock.Instant) async throws -> Route {
        let key = ConnectionPool.Key(host: host, port: port)
        if let route = state.withLock({ decide(key, &$0) }) { return route }
        let id = state.withLock { state -> UInt64 in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        return try await PoolWait.wait(
            until: deadline,
            expired: {
                TransportError(.timedOut, message: "the whole-request deadline passed while waiting for a connection to \(host):\(port)")
            },
            enqueue: { continuation, refusal in
                state.withLock { state -> Result<Route, any Error>? in
                    if let route = decide(key, &state) { return .success(route) }
                    if let refusal = refusal() { return .failure(refusal) }
                    state.hosts[key, default: Host()].waiters.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
            }, remove: { [weak self] in self?.removeWaiter(id, key: key)?.continuation })
    }

    /// Starts an ``HTTP2Connection`` on `stream`, the new connection of `slot` whose server
    /// selected `h2`, on the slot's thread as its handshake ends: `slot` leaves `slots`
    /// (``ConnectionPool/handOver(_:)``) and its unit of the connection limit passes to the
    /// connection, so no other connection can take the unit in between. A stream is claimed on
    /// the connection for the request the slot opened it for, before anyone else can see it;
    /// the caller's ``ConnectionAttempt`` registers it here.
    ///
    /// - Throws: `TransportError` when the connection cannot start (``HTTP2Connection/start(stream:host:port:limits:owningUnitOf:timing:idleTimeout:assumedMaxConcurrentStreams:onClosed:)``);
    ///   the unit is given back then.
    func adopt(_ stream: TLSStream, from slot: PooledConnection, of slots: ConnectionPool) throws(TransportError) -> HTTP2Connection {
        slots.handOver(slot)
        let key = ConnectionPool.Key(host: slot.host, port: slot.port)
        let learned = state.withLock { $0.hosts[key]?.connections.map(\.load.maxConcurrentStreams) ?? [] }
        let connection = try HTTP2Connection.start(
            stream: stream, host: slot.host, port: slot.port, limits: settings.limits, owningUnitOf: settings.threads,
            timing: timing, idleTimeout: idleTimeout,
            assumedMaxConcurrentStreams: Self.assumedMaxConcurrentStreams(learned: learned)
        ) { [weak self] in self?.closed($0) }
        _ = connection.reserve(beyondLimit: true)
        return connection
    }

    /// A new connection to the host is serving HTTP/2.
    ///
    /// - Parameter counted: It came from a counted ``ConnectionAttempt``, reporting for the first time.
    func established(_ connection: HTTP2Connection, for key: ConnectionPool.Key, counted: Bool) {
        let (served, shutDown) = state.withLock { state -> ([(Waiter, Route)], Bool) in
            var host = state.hosts[key] ?? Host()
            if counted { host.connecting -= 1 }
            host.speaksHTTP2 = true
            guard !state.isShutDown else {
                Self.store(host, at: key, in: &state)
                return ([], true)
            }
            host.connections.append(connection)
            state.hosts[key] = host
            return (serveWaiters(key, &state), false)
        }
        if shutDown { connection.shutDown() }
        resume(served)
    }

    /// An attempt answered over HTTP/1.1 (the server selected `http/1.1` or no protocol).
    func learnedHTTP1(for key: ConnectionPool.Key, counted: Bool) {
        resume(
            state.withLock { state in
                state.hosts[key, default: Host()].speaksHTTP1 = true
                if counted { state.hosts[key]?.connecting -= 1 }
                return serveWaiters(key, &state)
            })
    }

    /// The HTTP/1.1 pool has no connection left to `key`: that the host answered over HTTP/1.1
    /// is forgotten with it (the next attempt learns the protocol again).
    func forgetHTTP1(for key: ConnectionPool.Key) {
        state.withLock { state in
            guard var host = state.hosts[key] else { return }
            host.speaksHTTP1 = false
            Self.store(host, at: key, in: &state)
        }
    }

    /// A counted attempt failed (or was abandoned) before any protocol was known.
    func attemptFailed(for key: ConnectionPool.Key) {
        resume(
            state.withLock { state in
                state.hosts[key]?.connecting -= 1
                defer { Self.forgetIfEmpty(key, &state) }
                return serveWaiters(key, &state)
            })
    }

    /// `connection`'s thread has ended and given its unit back: it is forgotten at once, and its
    /// place goes to the next waiter.
    func closed(_ connection: HTTP2Connection) {
        let key = ConnectionPool.Key(host: connection.host, port: connection.port)
        resume(
            state.withLock { state in
                state.hosts[key]?.connections.removeAll { $0 === connection }
                defer { Self.forgetIfEmpty(key, &state) }
                return serveWaiters(key, &state)
            })
    }

    /// Closes one idle connection (no stream claimed), to any host, and hands its unit of the
    /// process-wide connection limit to the caller; false when every connection is busy.
    func evictIdle() -> Bool {
        state.withLock { state in
            for (key, host) in state.hosts {
                guard let connection = host.connections.first(where: { $0.retireForEviction() }) else { continue }
                state.hosts[key]?.connections.removeAll { $0 === connection }
                Self.forgetIfEmpty(key, &state)
                return true
            }
            return false
        }
    }

    /// Sends GOAWAY on every connection: requests in flight finish, no new one starts.
    func shutDown() {
        let connections = state.withLock { state -> [HTTP2Connection] in
            state.isShutDown = true
            return state.hosts.values.flatMap(\.connections)
        }
        for connection in connections { connection.shutDown() }
    }

    /// How many HTTP/2 connections to `host:port` exist and how many streams they carry.
    func counts(host: String, port: Int) -> (connections: Int, streams: Int) {
        let loads = loads(host: host, port: port)
        return (loads.count, loads.reduce(0) { $0 + $1.reserved })
    }

    /// Each connection to `host:port`, oldest first, as ``decide(loads:connecting:speaksHTTP1:speaksHTTP2:maxConnections:)``
    /// sees it; for tests.
    func loads(host: String, port: Int) -> [Load] {
        Self.loads(of: state.withLock { $0.hosts[ConnectionPool.Key(host: host, port: port)]?.connections ?? [] })
    }

    /// The loads of `connections`, in their order.
    private static func loads(of connections: [HTTP2Connection]) -> [Load] {
        connections.map { connection in
            let load = connection.load
            return Load(reserved: load.reserved, maxConcurrentStreams: load.maxConcurrentStreams, accepting: load.accepting)
        }
    }

    /// How many hosts have an entry, for tests and diagnostics.
    var hostCount: Int { state.withLock { $0.hosts.count } }

    // MARK: - Under the lock

    /// Applies ``decide(loads:connecting:speaksHTTP1:speaksHTTP2:maxConnections:)`` and claims
    /// what it chose; nil when the request must wait (or queue behind earlier waiters).
    private func decide(_ key: ConnectionPool.Key, _ state: inout State, waiting: Bool = false) -> Route? {
        var host = state.hosts[key] ?? Host()
        defer { Self.store(host, at: key, in: &state) }
        guard waiting || host.waiters.isEmpty else { return nil }
        // A reservation can fail if the connection's thread changed it since the snapshot: decide again.
        while true {
            let loads = Self.loads(of: host.connections)
            switch Self.decide(
                loads: loads, connecting: host.connecting, speaksHTTP1: host.speaksHTTP1,
                speaksHTTP2: host.speaksHTTP2, maxConnections: maxConnectionsPerHost)
            {
            case let .use(index):
                if host.connections[index].reserve(beyondLimit: false) { return .stream(host.connections[index]) }
            case let .useBeyondLimit(index):
                if host.connections[index].reserve(beyondLimit: true) { return .stream(host.connections[index]) }
            case .connect:
                host.connecting += 1
                return .connect(ConnectionAttempt(pool: self, key: key, counted: true))
            case .http1:
                return .connect(ConnectionAttempt(pool: self, key: key, counted: false))
            case .wait:
                return nil
            }
        }
    }

    /// Routes waiters in order until one must keep waiting.
    private func serveWaiters(_ key: ConnectionPool.Key, _ state: inout State) -> [(Waiter, Route)] {
        var served: [(Waiter, Route)] = []
        while let waiter = state.hosts[key]?.waiters.first, let route = decide(key, &state, waiting: true) {
            state.hosts[key]?.waiters.removeFirst()
            served.append((waiter, route))
        }
        return served
    }

    private func resume(_ served: [(Waiter, Route)]) {
        for (waiter, route) in served { waiter.continuation.resume(returning: route) }
    }

    private func removeWaiter(_ id: UInt64, key: ConnectionPool.Key) -> Waiter? {
        state.withLock { state -> Waiter? in
            guard let index = state.hosts[key]?.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            defer { Self.forgetIfEmpty(key, &state) }
            return state.hosts[key]?.waiters.remove(at: index)
        }
    }

    /// Keeps `host` as `key`'s entry, or drops the entry when it holds nothing.
    private static func store(_ host: Host, at key: ConnectionPool.Key, in state: inout State) {
        state.hosts[key] = host.isEmpty ? nil : host
    }

    private static func forgetIfEmpty(_ key: ConnectionPool.Key, _ state: inout State) {
        if state.hosts[key]?.isEmpty == true { state.hosts[key] = nil }
    }
}
