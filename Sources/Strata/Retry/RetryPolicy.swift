/// The rules a ``RetryTransport`` follows: which failures to retry, how often, and how long to
/// wait in between.
///
/// Use the defaults for a typical JSON API: up to three retries of idempotent requests that
/// failed with a transient network error or a 408, 429, 500, 502, 503 or 504, waiting a random
/// time up to 0.5 s, 1 s, then 2 s (full jitter), or as long as the server's `Retry-After` asks,
/// up to 60 s; and, across all requests, no more retries than the ``RetryBudget`` allows.
///
/// ```swift
/// let policy = RetryPolicy(maxRetries: 5, baseDelay: .milliseconds(200), jitter: .equal)
/// let transport = RetryTransport(inner: URLSessionTransport(), policy: policy)
/// ```
///
/// Every decision the policy makes is a pure function of the attempt's outcome, the request, the
/// time and a random draw, tested without a network or a clock.
///
/// Values that make no sense are clamped rather than rejected: a negative count or delay counts
/// as zero, and no delay exceeds 24 hours.
public struct RetryPolicy: Sendable, Hashable {
    /// How the computed backoff is randomized, so that many clients that failed together do not
    /// retry together (AWS Architecture Blog, "Exponential Backoff And Jitter").
    ///
    /// With `v = min(maxDelay, baseDelay × 2ⁿ)` for the n-th retry (n from 0) and `U(a, b)` a
    /// uniform draw:
    public enum Jitter: Sendable, Hashable {
        /// Exactly `v`: predictable, but clients that failed together retry together.
        case none
        /// `U(0, v)`: the least total load on the server; the default.
        case full
        /// `v/2 + U(0, v/2)`: never less than half the exponential delay.
        case equal
        /// `min(maxDelay, U(baseDelay, previous × 3))`, where `previous` is the previous
        /// computed delay (`baseDelay` before the first retry). Grows with each retry but
        /// without the attempt number.
        case decorrelated
    }

    /// The longest delay the policy ever asks for: one day. It keeps every delay finite,
    /// whatever `maxDelay` or `Retry-After` says; no caller waits that long inside one request.
    package static let longestDelay: Duration = .seconds(86_400)

    /// How many times a request is re-sent after its first attempt: `3` means at most 4 sends.
    public var maxRetries: Int
    /// The delay before the first retry, before jitter; doubled for each further one.
    public var baseDelay: Duration
    /// The cap on a computed delay. A `Retry-After` is capped by ``maxRetryAfter`` instead.
    public var maxDelay: Duration
    /// How the computed delay is randomized.
    public var jitter: Jitter
    /// Response statuses worth retrying. A 401 or 403 never belongs here: re-sending the same
    /// credentials cannot help, and a `ReauthTransport` outside this one handles 401.
    public var retryableStatusCodes: Set<Int>
    /// Methods retried without asking. A request with another method (POST, PATCH) is retried
    /// only if it carries an `Idempotency-Key` header.
    public var retryableMethods: Set<HTTPMethod>
    /// The longest `Retry-After` the caller accepts. A 429 or 503 asking for more is returned at
    /// once instead of being retried sooner than the server allows.
    public var maxRetryAfter: Duration
    /// The retry budget shared by every request through one ``RetryTransport``, or `nil` for no
    /// budget (every request may use all of its ``maxRetries``).
    public var budget: RetryBudget?

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - maxRetries: Re-sends after the first attempt; `3` means at most 4 sends.
    ///   - baseDelay: The delay before the first retry, before jitter.
    ///   - maxDelay: The cap on a computed (not `Retry-After`) delay.
    ///   - jitter: How the computed delay is randomized.
    ///   - retryableStatusCodes: Statuses worth retrying.
    ///   - retryableMethods: Methods retried without an `Idempotency-Key`. The default is the
    ///     idempotent methods of RFC 9110 §9.2.2.
    ///   - maxRetryAfter: The longest `Retry-After` that is waited for.
    ///   - budget: The shared retry budget; `nil` disables it.
    public init(
        maxRetries: Int = 3, baseDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(30),
        jitter: Jitter = .full,
        retryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504],
        retryableMethods: Set<HTTPMethod> = [.get, .head, .options, .trace, .put, .delete],
        maxRetryAfter: Duration = .seconds(60),
        budget: RetryBudget? = RetryBudget()
    ) {
        self.maxRetries = max(0, maxRetries)
        self.baseDelay = Self.clamped(baseDelay)
        self.maxDelay = Self.clamped(maxDelay)
        self.jitter = jitter
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableMethods = retryableMethods
        self.maxRetryAfter = Self.clamped(maxRetryAfter)
        self.budget = budget
    }

    /// Creates a policy with times in seconds, as earlier versions spelled it.
    @available(*, deprecated, message: "Pass Durations: baseDelay: .milliseconds(500), maxDelay: .seconds(30), maxRetryAfter: .seconds(60)")
    @_disfavoredOverload
    public init(
        maxRetries: Int = 3, baseDelay: Double = 0.5, maxDelay: Double = 30,
        jitter: Jitter = .full,
        retryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504],
        retryableMethods: Set<HTTPMethod> = [.get, .head, .options, .trace, .put, .delete],
        maxRetryAfter: Double = 60,
        budget: RetryBudget? = RetryBudget()
    ) {
        self.init(
            maxRetries: maxRetries, baseDelay: Self.clamped(seconds: baseDelay),
            maxDelay: Self.clamped(seconds: maxDelay), jitter: jitter, retryableStatusCodes: retryableStatusCodes,
            retryableMethods: retryableMethods, maxRetryAfter: Self.clamped(seconds: maxRetryAfter), budget: budget)
    }

    /// `duration` within `0...longestDelay`.
    static func clamped(_ duration: Duration) -> Duration {
        min(max(duration, .zero), longestDelay)
    }

    /// `seconds` as a duration within `0...longestDelay`; NaN counts as zero.
    static func clamped(seconds: Double) -> Duration {
        .clampedSeconds(seconds, limit: longestDelay)
    }
}
