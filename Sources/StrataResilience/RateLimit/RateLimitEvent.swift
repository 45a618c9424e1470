import Foundation
import Strata

/// What a ``RateLimitTransport`` did, reported through ``/Strata/TransportEvents`` to every observer
/// above it, in the task of the request concerned.
public enum RateLimitEvent: TransportEvent, Hashable {
    /// A response closed the window of `group` for `duration` (what `source` asked,
    /// `requested`, cut to ``RateLimitPolicy/maxHold``). Reported only when it closes or
    /// extends the window, not for every response that repeats the same reset.
    case windowClosed(group: String, duration: Duration, requested: Duration, source: RateLimitSource, statusCode: Int)
    /// A request waits `duration` for its group's window to reopen, or for its client-limit
    /// token, before it is sent.
    case held(group: String, duration: Duration, source: RateLimitSource, method: HTTPMethod, url: URL)
    /// A request was failed with ``RateLimitedError`` without being sent: the window reopens in
    /// `reopensIn`, later than it could wait.
    case rejected(group: String, reopensIn: Duration, source: RateLimitSource, method: HTTPMethod, url: URL)

    /// `ratelimit.closed`, `ratelimit.held` or `ratelimit.rejected`.
    public var name: String {
        switch self {
        case .windowClosed: "ratelimit.closed"
        case .held: "ratelimit.held"
        case .rejected: "ratelimit.rejected"
        }
    }

    /// `notice` when a server closes a window (worth seeing: the client is too fast), `warning`
    /// for a request failed because of it, `debug` for each held request (one per request; the
    /// `closed` line already said why).
    public var logLevel: LogLevel {
        switch self {
        case .windowClosed: .notice
        case .held: .debug
        case .rejected: .warning
        }
    }

    /// For example `rate limit of https://api.example.com:443 closed for 2 s by Retry-After on
    /// a 429`.
    public func message(redactedBy redaction: Redaction) -> String {
        switch self {
        case .windowClosed(let group, let duration, let requested, let source, let statusCode):
            let cut = requested > duration ? " (asked \(requested.readable), cut to RateLimitPolicy.maxHold)" : ""
            return "rate limit of \(group) closed for \(duration.readable)\(cut) by \(source) on a \(statusCode)"
        case .held(let group, let duration, let source, let method, let url):
            return "\(method) \(redaction.redact(url)) held \(duration.readable) by the rate limit of \(group) (\(source))"
        case .rejected(let group, let reopensIn, let source, let method, let url):
            return "\(method) \(redaction.redact(url)) not sent: the rate limit of \(group) (\(source)) reopens in \(reopensIn.readable)"
        }
    }

    /// `group`, `source`, and `hold_s`, `wait_s` or `reopens_in_s`.
    public func logMetadata(redactedBy redaction: Redaction) -> LogMetadata {
        switch self {
        case .windowClosed(let group, let duration, _, let source, let statusCode):
            [
                "group": group, "source": source.rawValue, "hold_s": Double.fixed(duration.inSeconds, places: 3),
                "status": String(statusCode),
            ]
        case .held(let group, let duration, let source, _, _):
            ["group": group, "source": source.rawValue, "wait_s": Double.fixed(duration.inSeconds, places: 3)]
        case .rejected(let group, let reopensIn, let source, _, _):
            ["group": group, "source": source.rawValue, "reopens_in_s": Double.fixed(reopensIn.inSeconds, places: 3)]
        }
    }
}
