#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// What ``RetryTransport`` did, reported through ``TransportEvents`` to every observer above it
/// (``LoggingTransport``, ``ObservingTransport``).
public enum RetryEvent: TransportEvent, Hashable {
    /// Where a retry's delay came from.
    public enum DelaySource: Sendable, Hashable {
        /// Exponential backoff with the policy's jitter.
        case backoff
        /// The response's `Retry-After` header, used as given (never jittered downward).
        case retryAfter
    }

    /// The transport waits `delay` and then sends the request again: `retry` is 1 for the first
    /// retry (the second send).
    ///
    /// Observed under the attempt whose outcome is being retried: the event that follows the
    /// first send's 503 carries attempt 1, and the retry it schedules is sent as attempt 2.
    /// `retry` counts this layer's retries; the attempt counts every send of the logical
    /// request, so the two differ when another layer resends too (a ``ReauthTransport``).
    case scheduled(
        retry: Int, delay: Duration, reason: RetryReason, delaySource: DelaySource,
        method: HTTPMethod, url: URL?)

    /// `retry.scheduled`.
    public var name: String {
        switch self {
        case .scheduled: "retry.scheduled"
        }
    }

    /// `notice`: a retry is expected, but worth seeing.
    public var logLevel: LogLevel { .notice }

    /// For example `retry 1 of GET https://api.example.com/todos in 0.371 s (status 503)`, the
    /// delay rounded to milliseconds.
    public func message(redactedBy redaction: Redaction) -> String {
        switch self {
        case .scheduled(let retry, let delay, let reason, let source, let method, let url):
            let after = source == .retryAfter ? " as Retry-After asked" : ""
            return "retry \(retry) of \(method) \(redaction.redact(url)) in \(Self.seconds(delay)) s\(after) (\(reason))"
        }
    }

    /// `retry` (the retry's number), `delay_s` and `reason`.
    public func logMetadata(redactedBy redaction: Redaction) -> LogMetadata {
        switch self {
        case .scheduled(let retry, let delay, let reason, _, _, _):
            ["retry": String(retry), "delay_s": Double.fixed(delay.inSeconds, places: 3), "reason": "\(reason)"]
        }
    }

    /// Seconds rounded to milliseconds, such as `0.371`.
    static func seconds(_ duration: Duration) -> Double {
        (duration.inSeconds * 1_000).rounded() / 1_000
    }
}
