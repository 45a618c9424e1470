/// How one connection of an ``EventSource`` ended: what ``ReconnectPolicy/decision(after:failedAttempts:serverDelay:)`` decides on.
enum EventSourceConnectionEnd {
    /// The server answered 204 No Content: "stop reconnecting".
    case noContent
    /// Another status than 200 or 204, with the start of its body.
    case rejected(HTTPResponse)
    /// A 200 whose `Content-Type` is not `text/event-stream`.
    case notEventStream(HTTPResponseHead)
    /// No response head arrived: the transport threw.
    case failedToConnect(any Error)
    /// The event stream's body ended cleanly; `delivered` says whether it carried any event.
    case ended(delivered: Bool)
    /// Reading the event stream's body failed (the connection dropped, a deadline passed);
    /// `delivered` says whether any event arrived before.
    case dropped(any Error, delivered: Bool)

    /// Whether the connection counts as a failed attempt: when no response arrived, or when the
    /// stream ended or dropped before a single event. A server that accepts and closes at once
    /// (or fails every body) is backed off from as one that refuses, not reconnected to at the
    /// pace of its `retry:`.
    var isFailedAttempt: Bool {
        switch self {
        case .failedToConnect: return true
        case .ended(let delivered), .dropped(_, let delivered): return !delivered
        case .noContent, .rejected, .notEventStream: return false
        }
    }
}

/// What an ``EventSource`` does after a connection ended.
enum ReconnectDecision {
    /// Connect again after waiting this long.
    case reconnect(after: Duration)
    /// Finish the sequence: no more events.
    case finish
    /// End the sequence with this error.
    case fail(any Error)
}

extension ReconnectPolicy {
    /// What to do after a connection ended: a pure function of the end, the failed attempts in a
    /// row (this one included) and the reconnection time the stream asked for.
    ///
    /// The rules follow the HTML Standard's EventSource ("announce the connection" / "fail the
    /// connection" / "reestablish the connection"), bounded where a server process needs it.
    func decision(after end: EventSourceConnectionEnd, failedAttempts: Int, serverDelay: Duration?) -> ReconnectDecision {
        let wait = min(maxDelay, serverDelay.map { max($0, Self.minimumServerDelay) } ?? delay)
        switch end {
        case .noContent:
            return .finish // "HTTP 204 No Content ... prevent the user agent from reconnecting."
        case .rejected(let response):
            return .fail(ServerSentEventError.unexpectedStatus(response)) // Any other status fails the connection.
        case .notEventStream(let head):
            return .fail(ServerSentEventError.notEventStream(contentType: head.headers["Content-Type"], url: head.url))
        case .ended(let delivered):
            guard reconnects else { return .finish }
            // An empty stream is not an error to give up on (a server may close idle streams),
            // but each one in a row doubles the wait.
            return .reconnect(after: delivered ? wait : Self.backoff(wait, failedAttempts: failedAttempts, cap: maxDelay))
        case .dropped(let error, let delivered):
            guard reconnects else { return .fail(error) }
            // A corrupt or oversized body, a refused expansion: the same body would fail again.
            guard (error as? TransportError)?.isTransient == true else { return .fail(error) }
            guard !delivered else { return .reconnect(after: wait) }
            guard failedAttempts < maxFailedAttempts else {
                return .fail(ServerSentEventError.reconnectFailed(attempts: failedAttempts, lastError: error))
            }
            return .reconnect(after: Self.backoff(wait, failedAttempts: failedAttempts, cap: maxDelay))
        case .failedToConnect(let error):
            guard reconnects else { return .fail(error) }
            // A TLS or pin failure, a bad request, a failed token refresh: trying again cannot help.
            guard (error as? TransportError)?.isTransient == true else { return .fail(error) }
            guard failedAttempts < maxFailedAttempts else {
                return .fail(ServerSentEventError.reconnectFailed(attempts: failedAttempts, lastError: error))
            }
            return .reconnect(after: Self.backoff(wait, failedAttempts: failedAttempts, cap: maxDelay))
        }
    }

    /// The shortest wait a server's `retry:` can ask for: `retry: 0` on a stream that closes
    /// would otherwise have the reader reconnect as fast as the network allows.
    static let minimumServerDelay = Duration.milliseconds(100)

    /// `base` doubled for every failure in a row after the first, at most `cap`.
    private static func backoff(_ base: Duration, failedAttempts: Int, cap: Duration) -> Duration {
        var wait = base
        for _ in 1..<max(1, failedAttempts) {
            guard wait > .zero, wait < cap else { break }
            wait *= 2
        }
        return min(wait, cap)
    }
}
