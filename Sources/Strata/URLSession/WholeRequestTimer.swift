import Dispatch

/// The moment a whole request (all its redirect hops) must be over, and a timer that fires
/// there. The timer runs on a Dispatch queue, never on Swift's cooperative pool.
struct WholeRequestTimer: Sendable {
    private let instant: DispatchTime

    /// A deadline `timeout` from now; a huge timeout saturates to "never" in practice.
    init(timeout: Duration) {
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = seconds > Int64.max / 1_000_000_000 ? Int64.max / 2
            : seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        instant = .now() + .nanoseconds(Int(clamping: max(0, nanoseconds)))
    }

    /// Runs `expire` at the deadline unless the returned item is cancelled first.
    func schedule(_ expire: @escaping @Sendable () -> Void) -> DispatchWorkItem {
        let item = DispatchWorkItem(block: expire)
        DispatchQueue.global().asyncAfter(deadline: instant, execute: item)
        return item
    }
}
