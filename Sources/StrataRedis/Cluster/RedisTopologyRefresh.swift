import Strata

/// The slot map of a cluster and the refreshes that replace it, one at a time: a caller that
/// asks for a refresh while one runs joins it instead of starting another, so a burst of
/// `MOVED` redirects or node failures costs the cluster one topology query, not one per command.
final class RedisTopologyRefresh: Sendable {
    /// Asks the cluster for its topology. It needs nothing from the map known so far: the
    /// cluster client asks its seeds alone, since a topology is what makes a node trusted.
    typealias Discover = @Sendable () async -> Result<RedisSlotMap, RedisClientError>

    private struct State {
        var map: RedisSlotMap?
        var running: Refresh?
    }

    private let state = LockedValue(State())
    private let discover: Discover

    /// Creates a refresher with no map; the first ``map()`` discovers one.
    init(discover: @escaping Discover) {
        self.discover = discover
    }

    /// The current map, discovered first when there is none yet (every caller arriving
    /// meanwhile waits for that same discovery).
    ///
    /// - Throws: the discovery's ``RedisClientError`` when no map could be had.
    func map() async throws(RedisClientError) -> RedisSlotMap {
        // One look under the lock: a refresh that ended between reading an empty map and
        // joining it would otherwise let this call start a second discovery.
        switch state.withLock({ state in state.map.map(Lookup.known) ?? .refreshing(start(&state)) }) {
        case .known(let map): return map
        case .refreshing(let running): return try await running.value.get()
        }
    }

    /// The map once the refresh under way, if any, has ended: the map it read, or when it
    /// failed (or none runs) the map known now; discovered first when there is none yet.
    ///
    /// For a command routed with a map that a refresh has since replaced (a refresh changes
    /// which nodes are trusted before its map is swapped in, so waiting for it is what makes
    /// the two agree).
    ///
    /// - Throws: the discovery's ``RedisClientError`` when no map could be had.
    func settledMap() async throws(RedisClientError) -> RedisSlotMap {
        if let running = state.withLock({ $0.running }), case .success(let map) = await running.value { return map }
        return try await map()
    }

    /// Refreshes the map, or joins the refresh already running, and returns its outcome. A
    /// failed refresh keeps the map known before.
    @discardableResult
    func refresh() async -> Result<RedisSlotMap, RedisClientError> {
        await start().value
    }

    /// Starts a refresh unless one is running, without waiting for it.
    func refreshInBackground() {
        _ = start()
    }

    /// Records a `MOVED` redirect at once, so the next command for `slot` goes to `node`
    /// even before a refresh confirms it.
    func assign(_ slot: Int, to node: RedisNodeAddress) {
        state.withLock { $0.map?.assign(slot, to: node) }
    }

    private typealias Refresh = Task<Result<RedisSlotMap, RedisClientError>, Never>

    /// What ``map()`` finds under the lock.
    private enum Lookup {
        case known(RedisSlotMap)
        case refreshing(Refresh)
    }

    private func start() -> Refresh {
        state.withLock { start(&$0) }
    }

    /// The running refresh, or a new one; called under the lock.
    private func start(_ state: inout State) -> Refresh {
        if let running = state.running { return running }
        // Detached: a refresh serves every caller, not the request that happened to start it.
        let task = Task.detached { [discover] in
            let result = await discover()
            self.finish(result)
            return result
        }
        state.running = task
        return task
    }

    private func finish(_ result: Result<RedisSlotMap, RedisClientError>) {
        state.withLock { state in
            if case .success(let map) = result { state.map = map }
            state.running = nil
        }
    }
}
