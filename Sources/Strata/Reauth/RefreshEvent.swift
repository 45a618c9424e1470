#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// What ``ReauthTransport`` did about a 401, reported through its `onRefresh` hook for logging,
/// metrics and demos.
///
/// A refresh reports ``started`` and then exactly one of ``succeeded(waiters:duration:)`` or
/// ``failed(_:waiters:duration:)``. The hook is called from whichever task is running at the
/// time; keep it quick and non-blocking.
public enum RefreshEvent: Sendable {
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
    /// A 401 answered a token that had already been replaced, so the request to `url` was
    /// resent with the current token without refreshing (the "late 401" of a request that was
    /// in flight during a refresh).
    case resentWithCurrentToken(url: URL?)
}

extension RefreshEvent: CustomStringConvertible {
    /// One line for a log, for example `token refresh succeeded in 0.21 seconds; 3 requests waited`;
    /// secrets in URLs are redacted (``Redaction``).
    public var description: String {
        switch self {
        case .started:
            "token refresh started"
        case .succeeded(let waiters, let duration):
            "token refresh succeeded in \(duration); \(Self.requests(waiters)) waited"
        case .failed(let error, let waiters, let duration):
            "token refresh failed after \(duration); \(Self.requests(waiters)) waited: \(Redaction().scrub("\(error)"))"
        case .refusedByLoopGuard(let refreshes, let window):
            "token refresh refused: already \(refreshes) refreshes within \(window)"
        case .resentWithCurrentToken(let url):
            "401 for a replaced token; resent \(url.map { Redaction().redact($0) } ?? "the request") with the current token"
        }
    }

    /// The event as ``LoggingTransport`` logs it.
    var transportEvent: TransportEvent.Kind {
        switch self {
        case .started: .authRefresh(phase: .started, waiters: 0)
        case .succeeded(let waiters, _): .authRefresh(phase: .succeeded, waiters: waiters)
        case .failed(let error, let waiters, _): .authRefresh(phase: .failed("\(error)"), waiters: waiters)
        case .refusedByLoopGuard: .authRefresh(phase: .failed(description), waiters: 0)
        case .resentWithCurrentToken: .authResend(refreshed: false)
        }
    }

    private static func requests(_ count: Int) -> String {
        count == 1 ? "1 request" : "\(count) requests"
    }
}
