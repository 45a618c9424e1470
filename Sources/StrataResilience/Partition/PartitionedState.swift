import Strata

/// The state a layer keeps for each group of a ``RequestPartition``, behind one lock, with a
/// bound on how many groups it holds: a client that calls many hosts (or a custom key with many
/// values) must not grow the map without limit.
///
/// When a new group would pass ``maxGroups``, the groups whose state is at rest (`isAtRest`: a
/// closed circuit with no recent calls, an idle queue, a window that reopened) are dropped
/// first; a group that is not at rest is never dropped, so an open circuit stays open.
package final class PartitionedState<State: Sendable>: Sendable {
    /// The most groups kept. 4,096 covers any service's dependencies many times over while
    /// bounding memory at a few hundred KiB.
    package static var defaultMaxGroups: Int { 4_096 }

    private let groups: LockedValue<[String: State]>
    private let makeState: @Sendable () -> State
    private let isAtRest: @Sendable (State) -> Bool
    /// The most groups kept.
    package let maxGroups: Int

    /// Creates an empty map.
    ///
    /// - Parameters:
    ///   - maxGroups: The most groups kept (at least 1).
    ///   - makeState: The state of a group seen for the first time.
    ///   - isAtRest: Whether a group may be dropped: dropping it must lose nothing that matters.
    package init(
        maxGroups: Int = defaultMaxGroups, makeState: @escaping @Sendable () -> State,
        isAtRest: @escaping @Sendable (State) -> Bool
    ) {
        groups = LockedValue([:])
        self.maxGroups = max(1, maxGroups)
        self.makeState = makeState
        self.isAtRest = isAtRest
    }

    /// Runs `body` on the state of group `key`, under the lock: keep it short and never suspend.
    package func withState<T>(for key: String, _ body: (inout State) throws -> T) rethrows -> T {
        try groups.withLock { groups in
            if groups[key] == nil {
                if groups.count >= maxGroups {
                    groups = groups.filter { !isAtRest($0.value) }
                }
                groups[key] = makeState()
            }
            return try body(&groups[key]!)
        }
    }

    /// The state of group `key`, or `nil` when the group has none yet.
    package func state(for key: String) -> State? {
        groups.withLock { $0[key] }
    }

    /// How many groups are held.
    package var count: Int { groups.withLock { $0.count } }
}
