/// One group's places: how many calls are in flight and who waits, first come first served.
///
/// A pure value over any waiter type: the transport keeps continuations in it, the tests keep
/// numbers. A freed place goes straight to the first waiter (never to a newcomer that happens
/// to arrive at the same time), so a waiter is never overtaken.
package struct ConcurrencyLimiter<Waiter> {
    /// What a call about to start is told.
    package enum Admission: Equatable {
        /// A place is the call's: start now.
        case granted
        /// No place: the call waits (at queue position `position`, 1 = next).
        case queued(position: Int)
        /// No place and no room to wait: fail at once.
        case rejected
    }

    package let policy: ConcurrencyLimitPolicy
    /// Calls holding a place.
    package private(set) var inFlight = 0
    private var waiters: [(id: UInt64, waiter: Waiter)] = []
    /// Index of the first live waiter in `waiters` (the array is compacted lazily).
    private var head = 0

    /// An idle group.
    package init(policy: ConcurrencyLimitPolicy) {
        self.policy = policy
    }

    /// How many calls wait for a place.
    package var queued: Int { waiters.count - head }

    /// Whether the group holds nothing: no call in flight, none waiting.
    package var isIdle: Bool { inFlight == 0 && queued == 0 }

    /// Takes a place when one is free and nobody waits for one.
    ///
    /// - Returns: Whether the place is the caller's.
    package mutating func tryAcquire() -> Bool {
        guard inFlight < policy.maxInFlight && queued == 0 else { return false }
        inFlight += 1
        return true
    }

    /// Grants a place to call `id`, queues it with `waiter`, or rejects it.
    package mutating func acquire(id: UInt64, waiter: @autoclosure () -> Waiter) -> Admission {
        if inFlight < policy.maxInFlight && queued == 0 {
            inFlight += 1
            return .granted
        }
        guard queued < policy.maxQueued else { return .rejected }
        waiters.append((id, waiter()))
        return .queued(position: queued)
    }

    /// Frees a place: the first waiter takes it (returned, to be resumed), or the count drops.
    package mutating func release() -> Waiter? {
        guard head < waiters.count else {
            inFlight = max(0, inFlight - 1)
            return nil
        }
        let first = waiters[head].waiter
        head += 1
        compactIfNeeded()
        return first // the place passes to it: inFlight is unchanged
    }

    /// Removes waiter `id` (its wait timed out or was cancelled) and returns it, or `nil` when
    /// it is not waiting any more (it was granted a place meanwhile).
    package mutating func remove(id: UInt64) -> Waiter? {
        guard let index = waiters[head...].firstIndex(where: { $0.id == id }) else { return nil }
        let removed = waiters.remove(at: index).waiter
        compactIfNeeded()
        return removed
    }

    private mutating func compactIfNeeded() {
        guard head > 32, head * 2 > waiters.count else { return }
        waiters.removeFirst(head)
        head = 0
    }
}

extension ConcurrencyLimiter: Sendable where Waiter: Sendable {}
