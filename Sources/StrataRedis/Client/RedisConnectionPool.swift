import Dispatch
import Strata

/// At most `maxConnections` lanes (``RedisConnectionSlot``) to one Redis server, created on
/// demand and reused most-recently-used first, so a quiet client keeps one warm connection.
///
/// A caller that finds every lane busy waits in line, first come first served, for at most the
/// timeout it gives; a lane given back goes straight to the longest waiter. A lane idle for its
/// idle timeout retires (``retire(_:)``), so a quiet client holds no thread or connection.
final class RedisConnectionPool: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<RedisConnectionSlot?, Never>
    }

    private struct State {
        var idle: [RedisConnectionSlot] = []
        var created = 0
        var waiters: [Waiter] = []
        var nextWaiterID: UInt64 = 0
    }

    /// The most lanes, hence connections and threads, the pool opens.
    let maxConnections: Int
    private let makeSlot: @Sendable (_ index: Int, _ retire: @escaping @Sendable (RedisConnectionSlot) -> Bool) -> RedisConnectionSlot
    private let state = LockedValue(State())

    /// Creates an empty pool.
    ///
    /// - Parameters:
    ///   - maxConnections: The most lanes; at least 1 is used.
    ///   - makeSlot: Creates the lane with the given index, and the call it makes when idle
    ///     (``retire(_:)``).
    init(
        maxConnections: Int,
        makeSlot: @escaping @Sendable (_ index: Int, _ retire: @escaping @Sendable (RedisConnectionSlot) -> Bool) -> RedisConnectionSlot
    ) {
        self.maxConnections = max(1, maxConnections)
        self.makeSlot = makeSlot
    }

    /// A lane for the caller's exclusive use until ``release(_:)``, or `nil` when none became
    /// free within `timeout`.
    func acquire(timeout: Duration) async -> RedisConnectionSlot? {
        await withCheckedContinuation { continuation in
            let waiterID: UInt64? = state.withLock { state in
                if let slot = state.idle.popLast() {
                    continuation.resume(returning: slot)
                    return nil
                }
                if state.created < maxConnections {
                    state.created += 1
                    continuation.resume(returning: makeSlot(state.created) { [weak self] slot in self?.retire(slot) ?? true })
                    return nil
                }
                state.nextWaiterID += 1
                state.waiters.append(Waiter(id: state.nextWaiterID, continuation: continuation))
                return state.nextWaiterID
            }
            guard let waiterID else { return }
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(timeout.wholeMilliseconds)) { [weak self] in
                self?.giveUp(waiterID)
            }
        }
    }

    /// Gives `slot` back: to the longest waiter if there is one, else to the idle lanes.
    func release(_ slot: RedisConnectionSlot) {
        let waiter: Waiter? = state.withLock { state in
            guard !state.waiters.isEmpty else {
                state.idle.append(slot)
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.continuation.resume(returning: slot)
    }

    /// Takes `slot` out of the pool if it is idle (its thread found it unused for its idle
    /// timeout), so the next caller that finds no idle lane opens a new one.
    ///
    /// - Returns: Whether it was idle; if not, it is leased and stays.
    func retire(_ slot: RedisConnectionSlot) -> Bool {
        state.withLock { state in
            guard let index = state.idle.firstIndex(where: { $0 === slot }) else { return false }
            state.idle.remove(at: index)
            state.created -= 1
            return true
        }
    }

    private func giveUp(_ waiterID: UInt64) {
        let waiter: Waiter? = state.withLock { state in
            guard let index = state.waiters.firstIndex(where: { $0.id == waiterID }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.continuation.resume(returning: nil)
    }
}
