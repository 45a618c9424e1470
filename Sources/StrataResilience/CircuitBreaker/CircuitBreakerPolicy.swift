import Foundation
import Strata

/// When a ``CircuitBreakerTransport`` opens, how long it stays open, and what counts as a
/// failure.
///
/// The circuit opens when, over the sliding ``window``, at least ``minimumThroughput`` calls
/// were made and the share of them that failed reached ``failureRatio``. It then fails every call
/// at once for ``breakDuration``, lets ``halfOpenProbes`` calls through as probes, and closes
/// when they all succeed (any probe failing opens it again for another ``breakDuration``).
///
/// The defaults follow the anchors, which agree on the shape and differ on the numbers:
///
/// | setting | default | anchor |
/// |---|---|---|
/// | ``failureRatio`` | 0.5 | resilience4j `failureRateThreshold` 50% (Polly v8 uses 0.1, which a retrying client reaches on a normal bad minute) |
/// | ``minimumThroughput`` | 100 | Polly v8 `MinimumThroughput` and resilience4j `minimumNumberOfCalls`, both 100 |
/// | ``window`` | 30 s, time-based | Polly v8 `SamplingDuration` 30 s |
/// | ``breakDuration`` | 5 s | Polly v8 `BreakDuration` 5 s (resilience4j waits 60 s) |
/// | ``halfOpenProbes`` | 1 | Polly v8 lets one call through; resilience4j 10 |
///
/// A low-traffic client (a command-line tool, a cron job) never reaches 100 calls in 30 s: give
/// it a smaller `minimumThroughput` or a count-based window.
public struct CircuitBreakerPolicy: Sendable {
    /// The calls the failure ratio is computed over.
    public enum Window: Sendable, Hashable {
        /// The calls that ended within the last `duration` (kept in ten buckets, so a call
        /// leaves the window within a tenth of `duration` of its time).
        case time(Duration)
        /// The last `calls` calls, however old.
        case count(Int)
    }

    /// How one call ended, for ``isFailure``.
    public enum Outcome: Sendable {
        /// A response head arrived, with any status.
        case response(HTTPResponseHead)
        /// No response: the error the layer below threw.
        case error(any Error)
    }

    /// The share of failed calls in the window, from 0 (exclusive) to 1, at which the circuit
    /// opens.
    public var failureRatio: Double
    /// The fewest calls in the window before the ratio is trusted (at least 1).
    public var minimumThroughput: Int
    /// The calls the ratio is computed over.
    public var window: Window
    /// How long an open circuit fails calls before it lets probes through.
    public var breakDuration: Duration
    /// How many calls a half-open circuit lets through at once (at least 1); the circuit closes
    /// when that many have succeeded.
    public var halfOpenProbes: Int
    /// Whether a call's outcome counts as a failure of the dependency. Default:
    /// ``isTransientFailure(_:)``.
    public var isFailure: @Sendable (Outcome) -> Bool

    /// Creates a policy; out-of-range values are clamped (a ratio into `0.01...1`, counts to at
    /// least 1, durations to at least a millisecond).
    ///
    /// - Parameters:
    ///   - failureRatio: The share of failed calls at which the circuit opens.
    ///   - minimumThroughput: The fewest calls in the window before the ratio counts.
    ///   - window: The calls the ratio is computed over.
    ///   - breakDuration: How long the circuit stays open.
    ///   - halfOpenProbes: How many probes a half-open circuit lets through.
    ///   - isFailure: What counts as a failure; `CancellationError` never reaches it (a
    ///     cancelled call counts as nothing).
    public init(
        failureRatio: Double = 0.5, minimumThroughput: Int = 100, window: Window = .time(.seconds(30)),
        breakDuration: Duration = .seconds(5), halfOpenProbes: Int = 1,
        isFailure: @escaping @Sendable (Outcome) -> Bool = CircuitBreakerPolicy.isTransientFailure
    ) {
        self.failureRatio = failureRatio.isNaN ? 0.5 : min(1, max(0.01, failureRatio))
        self.minimumThroughput = max(1, minimumThroughput)
        switch window {
        case .time(let duration): self.window = .time(max(duration, .milliseconds(1)))
        case .count(let calls): self.window = .count(max(1, calls))
        }
        self.breakDuration = max(breakDuration, .milliseconds(1))
        self.halfOpenProbes = max(1, halfOpenProbes)
        self.isFailure = isFailure
    }

    /// The default failure rule: a server error (5xx), and a transient ``/Strata/TransportError``
    /// (timed out, cannot connect, connection lost). Never a 4xx: the dependency answered, and
    /// a caller's bad request must not stop everyone else's. Never a TLS or pinning failure or
    /// an invalid request: they do not heal with time, and opening would hide their message
    /// behind "circuit open".
    public static func isTransientFailure(_ outcome: Outcome) -> Bool {
        switch outcome {
        case .response(let head): (500...599).contains(head.statusCode)
        case .error(let error): (error as? TransportError)?.isTransient ?? false
        }
    }
}
