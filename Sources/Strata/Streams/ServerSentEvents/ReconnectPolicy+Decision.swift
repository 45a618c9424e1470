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
    /// The event stream's body ended cleanly.
    case ended
    /// Reading the event stream's body failed (the connection dropped, a deadline passed).
    case dropped(any Error)

    /// Whether the connection counts as a failed attempt: only when no response arrived.
    var isFailedAttempt: Bool {
        if case .failedToConnect = self { return true }
        return false
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
        let wait = min(maxDelay, serverDelay ?? delay)
        switch end {
        case .noContent:
            return .finish  // "HTTP 204 No Content ... prevent the user agent from reconnecting."
        case .rejected(let response):
            return .fail(ServerSentEventError.unexpectedStatus(response))  // Any other status fails the connection.
        case .notEventStream(let head):
            return .fail(ServerSentEventError.notEventStream(contentType: head.headers["Content-Type"], url: head.url))
        case .ended:
            return reconnects ? .reconnect(after: wait) : .finish
        case .dropped(let error):
            return reconnects ? .reconnect(after: wait) : .fail(error)
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
