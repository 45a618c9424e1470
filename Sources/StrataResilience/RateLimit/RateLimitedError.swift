import Foundation
import Strata

/// The error a ``RateLimitTransport`` fails a request with, at once and without sending it,
/// when its group's rate-limit window reopens later than the request may wait.
///
/// It is not a ``/Strata/TransportError``, so ``/Strata/RetryTransport`` does not retry it: a retry would meet
/// the same closed window. Through ``/Strata/HTTPNetworkService`` it arrives as
/// ``/Strata/NetworkError/transport(_:)`` wrapping this error; ``retryAt`` says when to try again.
public struct RateLimitedError: Error, Sendable, CustomStringConvertible {
    /// Why the request could not wait.
    public enum Limit: Sendable, Hashable {
        /// The wait would be longer than ``RateLimitPolicy/maxWait``, given here.
        case maxWait(Duration)
        /// The wait would not end before the request's ``/Strata/RequestDeadline``; `timeLeft` was left.
        case deadline(timeLeft: Duration)
    }

    /// The group whose window is closed, such as `https://api.example.com:443` (see
    /// ``RequestPartition``).
    public var group: String
    /// How long until the request could have been sent.
    public var reopensIn: Duration
    /// The field that closed the window, or ``RateLimitSource/clientLimit``.
    public var source: RateLimitSource
    /// Why the request did not wait.
    public var limit: Limit
    /// The method of the request that was refused.
    public var method: HTTPMethod
    /// The URL of the request that was refused.
    public var url: URL
    /// When the window reopens, as a wall-clock date (for a `Retry-After` of your own).
    public var retryAt: Date

    /// Creates the error.
    public init(
        group: String, reopensIn: Duration, source: RateLimitSource, limit: Limit, method: HTTPMethod, url: URL,
        retryAt: Date
    ) {
        self.group = group
        self.reopensIn = reopensIn
        self.source = source
        self.limit = limit
        self.method = method
        self.url = url
        self.retryAt = retryAt
    }

    /// For example `GET https://api.example.com/todos: not sent, https://api.example.com:443 is
    /// rate limited by the server (Retry-After) for 45 s more, longer than a request may wait
    /// (RateLimitPolicy.maxWait 30 s). Try again in 45 s, or raise maxWait (RateLimitTransport)`.
    public var description: String {
        let who =
            source == .clientLimit
            ? "is held by the client's own limit (RateLimitPolicy.clientLimit)"
            : "is rate limited by the server (\(source))"
        let (why, remedy) =
            switch limit {
            case .maxWait(let maxWait):
                ("longer than a request may wait (RateLimitPolicy.maxWait \(maxWait.readable))", "raise maxWait")
            case .deadline(let timeLeft):
                ("and the request's deadline passes in \(timeLeft.readable)", "give the request a longer timeout")
            }
        let slower = source == .clientLimit ? ", send less often" : ""
        return "\(method) \(Redaction().redact(url)): not sent, \(group) \(who) for \(reopensIn.readable) more, \(why). "
            + "Try again in \(reopensIn.readable)\(slower), or \(remedy) (RateLimitTransport)"
    }
}

extension RateLimitedError: LocalizedError {
    /// The ``description``.
    public var errorDescription: String? { description }
}
