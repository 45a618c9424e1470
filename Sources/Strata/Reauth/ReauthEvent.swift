#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// What ``ReauthTransport`` did about a 401, reported through ``TransportEvents`` to every
/// observer above it (``LoggingTransport``, ``ObservingTransport``).
///
/// A refresh reports ``started`` and then exactly one of ``succeeded(waiters:duration:)`` or
/// ``failed(_:waiters:duration:)``, under the request whose 401 started it; each request that
/// is then sent again reports ``resentWithNewToken(url:)`` under its own identifier.
///
/// Every case is observed under the attempt number of the send whose 401 caused it (when a
/// ``RetryTransport`` below retried first, that is its last send, not the first); the resend
/// that follows is the next attempt.
public enum ReauthEvent: TransportEvent {
    /// A request carrying the current token got 401, and a token refresh started.
    case started
    /// The refresh saved a new token. `waiters` requests waited for it (cancelled ones
    /// included) and are being resent once with the new token.
    case succeeded(waiters: Int, duration: Duration)
    /// The refresh failed; each of the `waiters` requests that waited for it (cancelled ones
    /// included) receives `error`.
    case failed(ReauthError, waiters: Int, duration: Duration)
    /// The loop guard refused to start another refresh; the request that asked receives
    /// ``ReauthError/refreshLoopDetected(refreshes:window:)``.
    case refusedByLoopGuard(refreshes: Int, window: Duration)
    /// After a refresh, the request to `url` was sent again with the new token.
    case resentWithNewToken(url: URL?)
    /// A 401 answered a token that had already been replaced, so the request to `url` was
    /// resent with the current token without refreshing (the "late 401" of a request that was
    /// in flight during a refresh).
    case resentWithCurrentToken(url: URL?)

    /// `reauth.refresh.started`, `.succeeded`, `.failed`, `.refused`, or `reauth.resend.new-token`,
    /// `reauth.resend.current-token`.
    public var name: String {
        switch self {
        case .started: "reauth.refresh.started"
        case .succeeded: "reauth.refresh.succeeded"
        case .failed: "reauth.refresh.failed"
        case .refusedByLoopGuard: "reauth.refresh.refused"
        case .resentWithNewToken: "reauth.resend.new-token"
        case .resentWithCurrentToken: "reauth.resend.current-token"
        }
    }

    /// `error` for a failed or refused refresh, `notice` otherwise.
    public var logLevel: LogLevel {
        switch self {
        case .failed, .refusedByLoopGuard: .error
        case .started, .succeeded, .resentWithNewToken, .resentWithCurrentToken: .notice
        }
    }

    /// For example `token refresh succeeded in 210.00 ms; 3 requests waited`.
    public func message(redactedBy redaction: Redaction) -> String {
        switch self {
        case .started:
            "token refresh started"
        case .succeeded(let waiters, let duration):
            "token refresh succeeded in \(duration.readable); \(Self.requests(waiters)) waited"
        case .failed(let error, let waiters, let duration):
            "token refresh failed after \(duration.readable); \(Self.requests(waiters)) waited: \(redaction.scrub("\(error)"))"
        case .refusedByLoopGuard(let refreshes, let window):
            "token refresh refused: already \(refreshes) refreshes within \(window.readable)"
        case .resentWithNewToken(let url):
            "resent \(url.map { redaction.redact($0) } ?? "the request") with the refreshed token"
        case .resentWithCurrentToken(let url):
            "401 for a replaced token; resent \(url.map { redaction.redact($0) } ?? "the request") with the current token"
        }
    }

    /// `waiters` and `duration_ms` of a completed refresh.
    public func logMetadata(redactedBy redaction: Redaction) -> LogMetadata {
        switch self {
        case .succeeded(let waiters, let duration), .failed(_, let waiters, let duration):
            ["waiters": String(waiters), "duration_ms": RequestEvent.milliseconds(duration)]
        case .started, .refusedByLoopGuard, .resentWithNewToken, .resentWithCurrentToken:
            [:]
        }
    }

    private static func requests(_ count: Int) -> String {
        count == 1 ? "1 request" : "\(count) requests"
    }
}
