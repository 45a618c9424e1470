/// The background revalidations (`stale-while-revalidate`) of one ``ETagTransport`` and its
/// copies: at most one per entry at a time, at most `limit` at once, all cancelled by
/// ``shutDown()`` or when the last copy of the transport goes away.
///
/// A refresh's work must not hold this object (the transport's copy it runs with has none), so
/// that releasing the transport releases it and its `deinit` cancels what still runs.
final class BackgroundRefreshes: Sendable {
    /// Whether a refresh was started.
    enum Start: Sendable, Hashable {
        case started
        /// One for the same entry is running; it will store what it gets.
        case alreadyRunning
        /// `limit` refreshes are running.
        case atLimit
        /// ``shutDown()`` was called.
        case shutDown
    }

    private struct State {
        var running: [String: Task<Void, Never>] = [:]
        var isShutDown = false
    }

    private let state = LockedValue(State())
    private let limit: Int

    /// Creates an empty registry that runs at most `limit` refreshes at once.
    init(limit: Int) {
        self.limit = max(1, limit)
    }

    deinit {
        state.withLock { state in
            for task in state.running.values { task.cancel() }
        }
    }

    /// Starts `work` for the entry under `key` unless one is running for it, the limit is
    /// reached, or the registry was shut down.
    func start(key: String, _ work: @escaping @Sendable () async -> Void) -> Start {
        state.withLock { state in
            guard !state.isShutDown else { return .shutDown }
            guard state.running[key] == nil else { return .alreadyRunning }
            guard state.running.count < limit else { return .atLimit }
            // The task removes itself when done; it takes the lock, so it cannot before it is
            // registered here.
            state.running[key] = Task { [weak self] in
                await work()
                self?.state.withLock { _ = $0.running.removeValue(forKey: key) }
            }
            return .started
        }
    }

    /// Cancels every running refresh, refuses new ones, and waits until the running ones end.
    func shutDown() async {
        let tasks = state.withLock { state in
            state.isShutDown = true
            return Array(state.running.values)
        }
        for task in tasks {
            task.cancel()
            await task.value
        }
    }

    /// Waits until the refreshes running now have ended (tests use it to see what one stored).
    func settle() async {
        for task in state.withLock({ Array($0.running.values) }) { await task.value }
    }
}
