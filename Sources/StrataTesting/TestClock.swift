import Strata

/// A clock for tests: time moves only when you ``advance(by:)`` it or when something sleeps on
/// it, and a sleep returns at once, having moved the time to its deadline.
///
/// Pass it wherever a Strata layer takes `clock:` (`RetryTransport`, `ReauthTransport`), so a
/// test runs in microseconds and can assert exact waits:
/// ```swift
/// let clock = TestClock()
/// let retrying = RetryTransport(inner: flaky, policy: RetryPolicy(jitter: .none), clock: clock)
/// _ = try await retrying.send(request)
/// #expect(clock.sleeps == [.milliseconds(500), .seconds(1)])
/// ```
/// A sleep throws `CancellationError` when the calling task is cancelled.
///
/// Layers that race a wait against other work (a hedged request's delay, a queue timeout, a
/// rate-limit window) need time that stands still until the test moves it: create the clock with
/// `TestClock(sleepsAdvanceTime: false)`. A sleep then waits until ``advance(by:)`` reaches its
/// deadline, and ``waitForSleepers(_:)`` lets the test wait, without sleeping for real, until the
/// code under test has started its waits:
/// ```swift
/// let clock = TestClock(sleepsAdvanceTime: false)
/// let call = Task { try await hedging.send(request) }
/// await clock.waitForSleepers(1)          // the hedge delay has started
/// clock.advance(by: .milliseconds(50))    // the delay passes: the hedge is sent
/// ```
public final class TestClock: Clock, Sendable {
    /// A point on a ``TestClock``: the time since the clock was created.
    public struct Instant: InstantProtocol {
        /// The time since the clock was created.
        package var offset: Duration

        /// Creates the instant `offset` after the clock's creation.
        package init(offset: Duration) { self.offset = offset }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }

        /// The time from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }

        /// Whether `lhs` is earlier than `rhs`.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var id: Int
        var deadline: Duration
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct SleeperCountWaiter {
        var count: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now = Duration.zero
        var sleeps: [Duration] = []
        var nextSleeperID = 0
        var sleepers: [Sleeper] = []
        var countWaiters: [SleeperCountWaiter] = []
        /// Sleeps that have an identifier but are not waiting yet.
        var startingSleepers: Set<Int> = []
        /// Sleeps cancelled before they were waiting.
        var cancelledSleepers: Set<Int> = []

        /// Takes the waiters of `waitForSleepers(_:)` that the current number of sleepers satisfies.
        mutating func satisfiedCountWaiters() -> [CheckedContinuation<Void, Never>] {
            let ready = countWaiters.filter { $0.count <= sleepers.count }
            countWaiters.removeAll { $0.count <= sleepers.count }
            return ready.map(\.continuation)
        }
    }

    private let state = LockedValue(State())
    /// Whether a sleep returns at once, moving the time to its deadline (`true`), or waits for
    /// ``advance(by:)`` to reach it (`false`).
    public let sleepsAdvanceTime: Bool

    /// Creates a clock at offset zero whose sleeps return at once, moving the time forward.
    public init() {
        sleepsAdvanceTime = true
    }

    /// Creates a clock at offset zero.
    ///
    /// - Parameter sleepsAdvanceTime: `true` (as ``init()``): a sleep returns at once and moves
    ///   the time to its deadline. `false`: time moves only with ``advance(by:)``, and a sleep
    ///   waits until the time reaches its deadline or its task is cancelled.
    public init(sleepsAdvanceTime: Bool) {
        self.sleepsAdvanceTime = sleepsAdvanceTime
    }

    /// The current instant.
    public var now: Instant { Instant(offset: state.withLock { $0.now }) }

    /// Zero: the clock has no resolution limit.
    public var minimumResolution: Duration { .zero }

    /// How long each sleep asked to wait, in order (a deadline already past counts as zero).
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    /// How many sleeps are waiting for ``advance(by:)`` (always zero when
    /// ``sleepsAdvanceTime`` is `true`).
    public var sleepers: Int { state.withLock { $0.sleepers.count } }

    /// Moves the time forward by `duration`, and ends every sleep whose deadline it reaches, the
    /// earliest first.
    public func advance(by duration: Duration) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now += duration
            let due = state.sleepers.filter { $0.deadline <= state.now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= state.now }
            return due.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Waits until at least `count` sleeps are waiting for ``advance(by:)``: the code under test
    /// has reached its waits. Returns at once when they already are.
    public func waitForSleepers(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                guard state.sleepers.count < count else { return true }
                state.countWaiters.append(SleeperCountWaiter(count: count, continuation: continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Records the wait; then, when ``sleepsAdvanceTime`` is `true`, moves the time to
    /// `deadline` if it is later and returns at once, and otherwise waits until ``advance(by:)``
    /// reaches `deadline`.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        guard !sleepsAdvanceTime else {
            state.withLock { state in
                state.sleeps.append(max(.zero, deadline.offset - state.now))
                state.now = max(state.now, deadline.offset)
            }
            return
        }
        let id = state.withLock { state -> Int in
            state.sleeps.append(max(.zero, deadline.offset - state.now))
            state.nextSleeperID += 1
            state.startingSleepers.insert(state.nextSleeperID)
            return state.nextSleeperID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
                    state.startingSleepers.remove(id)
                    if state.cancelledSleepers.remove(id) != nil { return (.failure(CancellationError()), []) }
                    if deadline.offset <= state.now { return (.success(()), []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline.offset, continuation: continuation))
                    return (nil, state.satisfiedCountWaiters())
                }
                if let result = outcome.0 { continuation.resume(with: result) }
                for waiter in outcome.1 { waiter.resume() }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    // Not waiting yet: the registration fails it. Already woken: nothing to do.
                    if state.startingSleepers.contains(id) { state.cancelledSleepers.insert(id) }
                    return nil
                }
                return state.sleepers.remove(at: index).continuation
            }
            cancelled?.resume(throwing: CancellationError())
        }
    }
}
