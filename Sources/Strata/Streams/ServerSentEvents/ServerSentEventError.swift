import Foundation

/// Why a server-sent event stream could not be read, or an ``EventSource`` stopped with a failure.
public enum ServerSentEventError: Error, Sendable, CustomStringConvertible {
    /// One line plus one event's data passed `limit` bytes (the `maxEventBytes` you gave): the
    /// stream is not read further, since holding more would let a server grow memory unbounded.
    case eventTooLarge(limit: Int)
    /// The server answered another status than 200 (or 204, which ends an ``EventSource``).
    /// Carries the response with the first 64 KiB of its body. As
    /// a browser's `EventSource`, the reader does not reconnect after it.
    case unexpectedStatus(HTTPResponse)
    /// The server answered 200 with a `Content-Type` other than `text/event-stream` (`nil` when
    /// it sent none). The reader does not reconnect after it.
    case notEventStream(contentType: String?, url: URL?)
    /// `attempts` connection attempts in a row failed (``ReconnectPolicy/maxFailedAttempts``);
    /// `lastError` is the last one's error.
    case reconnectFailed(attempts: Int, lastError: any Error)

    /// What went wrong and what to do. URLs go through ``Redaction``.
    public var description: String {
        switch self {
        case .eventTooLarge(let limit):
            return "a server-sent event (one line plus its data) is larger than the \(limit)-byte limit; "
                + "raise maxEventBytes if the server's events are that large"
        case .unexpectedStatus(let response):
            return "the event stream at \(response.url.map { Redaction().redact($0) } ?? "the request") answered "
                + "\(response.statusCode), not 200; an event stream does not reconnect after that"
        case .notEventStream(let contentType, let url):
            return "\(url.map { Redaction().redact($0) } ?? "the server") answered with Content-Type "
                + "\(contentType.map { "'\($0)'" } ?? "missing"), not text/event-stream; check the endpoint "
                + "(a login page or a proxy's error page is the usual cause)"
        case .reconnectFailed(let attempts, let lastError):
            return "the event stream could not reconnect: \(attempts) attempts in a row failed, the last with: "
                + Redaction().scrub("\(lastError)")
        }
    }
}

extension ServerSentEventError: LocalizedError {
    /// The redacted ``description``.
    public var errorDescription: String? { description }
}
