import Strata

/// The rules a ``RateLimitTransport`` follows: how long a request may wait for a closed window,
/// how long any server may close one, and, optionally, a rate of the client's own.
///
/// The defaults suit a typical JSON API: a request waits up to 30 s for its group's window to
/// reopen (less when its ``/Strata/RequestDeadline`` is nearer), and no server closes a window for more
/// than 60 s at a time, whatever it sends.
/// ```swift
/// // An API that resets its quota hourly (GitHub): honour its X-RateLimit-Reset in full, but
/// // fail a request at once rather than keep it waiting more than 5 s.
/// let policy = RateLimitPolicy(maxWait: .seconds(5), maxHold: .seconds(3_600))
/// ```
///
/// Values that make no sense are clamped rather than rejected: a negative duration counts as
/// zero (``maxWait`` zero fails every held request at once; ``maxHold`` zero never holds).
public struct RateLimitPolicy: Sendable, Hashable {
    /// The default ``maxWait``: 30 s, the order of a typical request timeout, so a caller
    /// without a deadline of its own is not kept much longer than a slow response would keep it.
    /// (resilience4j's RateLimiter waits 5 s by default for a client-side permit, which comes
    /// every few milliseconds; a server's window reopens in seconds.)
    public static let defaultMaxWait: Duration = .seconds(30)
    /// The default ``maxHold``: 60 s, as `RetryPolicy`'s `maxRetryAfter`, so a hostile or broken
    /// `Retry-After: 31536000` costs one probe a minute, not a year without calls.
    public static let defaultMaxHold: Duration = .seconds(60)

    /// The longest a request waits for its group's window to reopen (or for its client-limit
    /// token). A request whose wait would be longer fails at once with ``RateLimitedError``,
    /// without waiting at all; so does one whose wait would not end before its
    /// ``/Strata/RequestDeadline``.
    public var maxWait: Duration
    /// The longest one response may close its group's window, whatever it asked: a longer
    /// `Retry-After` or reset is cut to this. The next request after it is sent, and the
    /// server's answer to it closes the window again if the limit still holds.
    public var maxHold: Duration
    /// A rate the client keeps to by itself, per group, before any server complains; `nil` (the
    /// default) for none.
    public var clientLimit: ClientLimit?

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - maxWait: The longest a request waits; default ``defaultMaxWait`` (30 s).
    ///   - maxHold: The longest a server may close a window; default ``defaultMaxHold`` (60 s).
    ///   - clientLimit: A client-side rate per group; default none.
    public init(maxWait: Duration = defaultMaxWait, maxHold: Duration = defaultMaxHold, clientLimit: ClientLimit? = nil) {
        self.maxWait = maxWait
        self.maxHold = maxHold
        self.clientLimit = clientLimit
    }

    /// ``maxWait``, at least zero and at most `RateLimitHeaders.longestHold`.
    var effectiveMaxWait: Duration { min(max(maxWait, .zero), RateLimitHeaders.longestHold) }
    /// ``maxHold``, at least zero and at most `RateLimitHeaders.longestHold`.
    var effectiveMaxHold: Duration { min(max(maxHold, .zero), RateLimitHeaders.longestHold) }
}
