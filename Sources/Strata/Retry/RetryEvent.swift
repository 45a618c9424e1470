import Foundation

/// A report from ``RetryTransport`` that it is about to wait and send a request again, for
/// logging and metrics.
public struct RetryEvent: Sendable, Hashable {
    /// The retry about to be made: 1 for the first retry (the second send).
    public var attempt: Int
    /// Seconds the transport waits before it.
    public var delay: Double
    /// What failed: a retryable status or a transient network error.
    public var reason: RetryReason
    /// Whether ``delay`` is the server's `Retry-After` or computed backoff.
    public var delaySource: RetryPlan.DelaySource
    /// The request's method.
    public var method: HTTPMethod
    /// The request's URL.
    public var url: URL?

    /// Creates an event.
    public init(attempt: Int, delay: Double, reason: RetryReason, delaySource: RetryPlan.DelaySource,
                method: HTTPMethod, url: URL?) {
        self.attempt = attempt
        self.delay = delay
        self.reason = reason
        self.delaySource = delaySource
        self.method = method
        self.url = url
    }
}

extension RetryEvent: CustomStringConvertible {
    /// For example `retry 1 of GET https://api.example.com/todos in 0.371 s (status 503)`, the
    /// delay rounded to milliseconds and secrets in the URL redacted (``Redaction``), so it is
    /// safe to log.
    public var description: String {
        let after = delaySource == .retryAfter ? " as Retry-After asked" : ""
        let seconds = (delay * 1_000).rounded() / 1_000
        return "retry \(attempt) of \(method) \(Redaction().redact(url)) in \(seconds) s\(after) (\(reason))"
    }
}
