import Strata

/// Keep-alive connections of one ``PinningTransport`` (so of one trust configuration), per host
/// and port, with a per-host limit.
///
/// - ``acquire(host:port:deadline:)`` hands out the most recently used idle connection (older
///   ones expire first), or a new slot while the host is under its limit, or waits: waiters are
///   served first come, first served, and a cancelled waiter, or one whose deadline passed,
///   leaves the queue at once.
/// - A kept connection idle for longer than `idleTimeout` (by the injected clock) is not reused:
///   its slot reconnects. Independently, each slot's thread retires its idle connection after
///   `idleTimeout` of real time, so an unused pool holds no sockets or threads.
/// - ``release(_:keepAlive:)`` gives the slot straight to the next waiter, even when its
///   connection closed (the waiter then connects on it), or back to the idle list.
/// - ``handOver(_:)`` takes out a slot whose new connection became an HTTP/2 connection: the
///   slot's unit of the ``ConnectionThreadLimit`` passes to that connection, never freed in
///   between, and the host's next waiter gets a new slot as ``acquire(host:port:deadline:)`` would.
/// - Every slot holds one unit of the process-wide ``ConnectionThreadLimit``. At that limit a
///   new slot takes the place of this pool's oldest idle slot (any host), or the unit of an idle
///   HTTP/2 connection of the same transport (``evictIdleHTTP2``), or the request fails at once
///   with `cannotConnect`; it does not wait for other hosts' connections.
/// - A host with no slot and no waiter leaves the table, so a client that talked to many hosts
///   keeps no entry for them; `hostForgotten` hears of it (the HTTP/2 pool forgets then that
///   the host answered over HTTP/1.1).
///
/// Policy only: all I/O happens on the slots' threads.
final class ConnectionPool: Sendable {
    /// Where connections go.
    struct Key: Hashable, Sendable {
        var host: String
        var port: Int
    }

    /// A slot handed out to one request.
    struct Lease: Sendable {
        let connection: PooledConnection
        /// The slot's kept connection sat idle past the expiry; the job must not reuse it.
        let idleExpired: Bool
    }

    private struct Idle {
        let connection: PooledConnection
        let since: Duration
    }

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Lease, any Error>
    }

    private struct HostSlots {
        var idle: [Idle] = []
        /// Slots that exist, idle or leased.
        var open = 0
        var waiters: [Waiter] = []
    }

    private struct State {
        var hosts: [Key: HostSlots] = [:]
        var nextWaiterID: UInt64 = 0
        var isShutDown = false
    }

    private let state = LockedValue(State())
    private let settings: ConnectionSettings
    private var threads: ConnectionThreadLimit { settings.threads }
    /// The most connections open to one host and port at once.
    let maxConnectionsPerHost: Int
    /// How long a kept connection may sit idle and still be reused.
    let idleTimeout: Duration

    /// Closes an idle HTTP/2 connection of the same transport and hands its unit of the
    /// connection limit over; false when there is none. Called under this pool's lock.
    private let evictIdleHTTP2: @Sendable () -> Bool
    /// Told when a host leaves the table. Called under this pool's lock.
    private let hostForgotten: @Sendable (Key) -> Void

    init(
        settings: ConnectionSettings, maxConnectionsPerHost: Int, idleTimeout: Duration,
        evictIdleHTTP2: @escaping @Sendable () -> Bool = { false },
        hostForgotten: @escaping @Sendable (Key) -> Void = { _ in }
    ) {
        self.settings = settings
        self.maxConnectionsPerHost = max(1, maxConnectionsPerHost)
        self.idleTimeout = idleTimeout
        self.evictIdleHTTP2 = evictIdleHTTP2
        self.hostForgotten = hostForgotten
    }

    /// A slot for `host:port`, waiting while the host is at its limit, but not past `deadline`.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled while waiting;
    ///   `TransportError` ``/Strata/TransportError/Kind/timedOut`` when `deadline` passes first.
    func acquire(host: String, port: Int, deadline: ContinuousClock.Instant) async throws -> Lease {
        let key = Key(host: host, port: port)
        if let lease = try decide(key) { return lease }
        let id = state.withLock { state -> UInt64 in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        let limit = maxConnectionsPerHost
        return try await PoolWait.wait(
            until: deadline,
            expired: {
                TransportError(
                    .timedOut,
                    message: "the whole-request deadline passed while waiting for a free connection to "
                        + "\(host):\(port) (all \(limit) are in use; PinningTransport.Configuration.maxConnectionsPerHost)")
            },
            enqueue: { continuation, refusal in
                let (immediate, evicted) = state.withLock { state -> (Result<Lease, any Error>?, PooledConnection?) in
                    switch takeOrOpen(key, &state) {
                    case let .lease(lease, evicting): return (.success(lease), evicting)
                    case let .refused(error): return (.failure(error), nil)
                    case .wait: break
                    }
                    if let refusal = refusal() { return (.failure(refusal), nil) }
                    state.hosts[key, default: HostSlots()].waiters.append(Waiter(id: id, continuation: continuation))
                    return (nil, nil)
                }
                evicted?.shutDown()
                return immediate
            }, remove: { [weak self] in self?.removeWaiter(id, key: key)?.continuation })
    }

    /// A lease without waiting, nil when the caller must queue.
    ///
    /// - Throws: `TransportError` `cannotConnect` at the process-wide connection limit.
    private func decide(_ key: Key) throws -> Lease? {
        let (decision, evicted) = state.withLock { state -> (Result<Lease, any Error>?, PooledConnection?) in
            switch takeOrOpen(key, &state) {
            case let .lease(lease, evicting): return (.success(lease), evicting)
            case let .refused(error): return (.failure(error), nil)
            case .wait: return (nil, nil)
            }
        }
        evicted?.shutDown()
        return try decision?.get()
    }

    /// Takes waiter `id` out of the queue; nil when it was already served or removed.
    private func removeWaiter(_ id: UInt64, key: Key) -> Waiter? {
        state.withLock { state -> Waiter? in
            guard let index = state.hosts[key]?.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            defer { forgetIfEmpty(key, &state) }
            return state.hosts[key]?.waiters.remove(at: index)
        }
    }

    /// Returns a slot after its job: to the next waiter, to the idle list (`keepAlive`), or closed.
    func release(_ connection: PooledConnection, keepAlive: Bool) {
        let key = Key(host: connection.host, port: connection.port)
        let now = settings.clock.elapsed()
        let (waiter, retire) = state.withLock { state -> (Waiter?, Bool) in
            guard var slots = state.hosts[key] else { return (nil, true) }
            defer {
                state.hosts[key] = slots
                forgetIfEmpty(key, &state)
            }
            if !slots.waiters.isEmpty { return (slots.waiters.removeFirst(), false) }
            if keepAlive, !state.isShutDown {
                slots.idle.append(Idle(connection: connection, since: now))
                return (nil, false)
            }
            slots.open -= 1
            threads.release()
            return (nil, true)
        }
        if let waiter {
            waiter.continuation.resume(returning: Lease(connection: connection, idleExpired: false))
        } else if retire {
            connection.shutDown()
        }
    }

    /// Takes `connection`'s slot out of the pool without giving its unit of the connection limit
    /// back: the caller owns the unit from now on (the HTTP/2 connection the slot's new connection
    /// became runs on it), so no other connection can take it in between. The slot's thread ends
    /// after its current job. The host's next waiter, if any, gets a new slot under the limits, or
    /// the failure ``acquire(host:port:deadline:)`` gives at the process-wide limit.
    func handOver(_ connection: PooledConnection) {
        let key = Key(host: connection.host, port: connection.port)
        let (served, evicted) = state.withLock { state -> ((Waiter, Result<Lease, any Error>)?, PooledConnection?) in
            guard state.hosts[key] != nil else { return (nil, nil) }
            state.hosts[key]?.open -= 1
            defer { forgetIfEmpty(key, &state) }
            guard let waiter = state.hosts[key]?.waiters.first else { return (nil, nil) }
            let served: Result<Lease, any Error>
            let evicted: PooledConnection?
            switch takeOrOpen(key, &state, waiting: true) {
            case let .lease(lease, evicting): (served, evicted) = (.success(lease), evicting)
            case let .refused(error): (served, evicted) = (.failure(error), nil)
            case .wait: return (nil, nil)
            }
            state.hosts[key]?.waiters.removeFirst()
            return ((waiter, served), evicted)
        }
        connection.relinquishStream()
        connection.shutDown()
        evicted?.shutDown()
        if case let (waiter, result)? = served { waiter.continuation.resume(with: result) }
    }

    /// Takes `connection` out of the idle list (its thread found it unused for `idleTimeout`).
    ///
    /// - Returns: Whether it was idle; if not, it is leased and stays.
    func retire(_ connection: PooledConnection) -> Bool {
        let key = Key(host: connection.host, port: connection.port)
        return state.withLock { state in
            guard let index = state.hosts[key]?.idle.firstIndex(where: { $0.connection === connection }) else {
                return false
            }
            state.hosts[key]?.idle.remove(at: index)
            state.hosts[key]?.open -= 1
            threads.release()
            forgetIfEmpty(key, &state)
            return true
        }
    }

    /// Closes every idle connection; slots in use close when they are released.
    func shutDown() {
        let idle = state.withLock { state -> [PooledConnection] in
            state.isShutDown = true
            var idle: [PooledConnection] = []
            for (key, var slots) in state.hosts {
                idle += slots.idle.map(\.connection)
                slots.open -= slots.idle.count
                for _ in slots.idle { threads.release() }
                slots.idle = []
                state.hosts[key] = slots
                forgetIfEmpty(key, &state)
            }
            return idle
        }
        for connection in idle { connection.shutDown() }
    }

    /// How many slots exist for `host:port` (idle or in use) and how many requests wait for
    /// one, for tests and diagnostics.
    func counts(host: String, port: Int) -> (open: Int, waiting: Int) {
        state.withLock { state in
            let slots = state.hosts[Key(host: host, port: port)]
            return (slots?.open ?? 0, slots?.waiters.count ?? 0)
        }
    }

    /// How many hosts have an entry (slots or waiters), for tests and diagnostics.
    var hostCount: Int { state.withLock { $0.hosts.count } }

    /// What ``takeOrOpen(_:_:)`` decided.
    private enum Decision {
        /// A slot; `evicting` is another host's idle slot to shut down, whose thread unit it took.
        case lease(Lease, evicting: PooledConnection?)
        /// The host is at its limit (or others wait before us): queue.
        case wait
        /// The process-wide limit is reached and this pool has no idle slot to give up.
        case refused(TransportError)
    }

    /// The most recently used idle slot, or a new one under the limits, or what to do instead;
    /// `waiting` when deciding for the first waiter, still queued.
    private func takeOrOpen(_ key: Key, _ state: inout State, waiting: Bool = false) -> Decision {
        var slots = state.hosts[key] ?? HostSlots()
        // Waiters were here first: only they get slots until the queue is empty.
        guard waiting || slots.waiters.isEmpty else { return .wait }
        if let idle = slots.idle.popLast() {
            state.hosts[key] = slots
            return .lease(
                Lease(connection: idle.connection, idleExpired: settings.clock.elapsed() - idle.since >= idleTimeout),
                evicting: nil)
        }
        guard slots.open < maxConnectionsPerHost else { return .wait }
        var evicted: PooledConnection?
        if !threads.tryAcquire() {
            // Give up this pool's oldest idle slot; its unit passes to the new slot.
            if let victim = Self.oldestIdle(in: state) {
                state.hosts[victim.key]?.idle.removeAll { $0.connection === victim.connection }
                state.hosts[victim.key]?.open -= 1
                forgetIfEmpty(victim.key, &state)
                evicted = victim.connection
                slots = state.hosts[key] ?? HostSlots()
            } else if !evictIdleHTTP2() {
                return .refused(threads.exhausted(host: key.host, port: key.port))
            }
        }
        slots.open += 1
        state.hosts[key] = slots
        let connection = PooledConnection(host: key.host, port: key.port, settings: settings, idleTimeout: idleTimeout) {
            [weak self] connection in self?.retire(connection) ?? true
        }
        return .lease(Lease(connection: connection, idleExpired: false), evicting: evicted)
    }

    /// The idle slot unused for longest, across hosts.
    private static func oldestIdle(in state: State) -> (key: Key, connection: PooledConnection)? {
        var oldest: (key: Key, idle: Idle)?
        for (key, slots) in state.hosts {
            guard let first = slots.idle.first else { continue }
            if let current = oldest, current.idle.since <= first.since { continue }
            oldest = (key, first)
        }
        return oldest.map { ($0.key, $0.idle.connection) }
    }

    /// Drops `key`'s entry once it has no slot and no waiter.
    private func forgetIfEmpty(_ key: Key, _ state: inout State) {
        guard let slots = state.hosts[key], slots.open <= 0, slots.idle.isEmpty, slots.waiters.isEmpty else { return }
        state.hosts[key] = nil
        hostForgotten(key)
    }
}
