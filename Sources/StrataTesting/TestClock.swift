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

    private struct State {
        var now = Duration.zero
        var sleeps: [Duration] = []
    }

    private let state = LockedValue(State())

    /// Creates a clock at offset zero.
    public init() {}

    /// The current instant.
    public var now: Instant { Instant(offset: state.withLock { $0.now }) }

    /// Zero: the clock has no resolution limit.
    public var minimumResolution: Duration { .zero }

    /// How long each sleep asked to wait, in order (a deadline already past counts as zero).
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    /// Moves the time forward by `duration`.
    public func advance(by duration: Duration) {
        state.withLock { $0.now += duration }
    }

    /// Records the wait, moves the time to `deadline` if it is later, and returns at once.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(max(.zero, deadline.offset - state.now))
            state.now = max(state.now, deadline.offset)
        }
    }
}
