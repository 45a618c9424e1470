/// When an ``EventSource`` connects again, and when it gives up.
///
/// A browser's `EventSource` reconnects forever; a server process should not hammer a host that
/// is down, so this policy bounds the attempts that fail to connect. The defaults:
/// - After a connection that delivered events ends (cleanly or dropped mid-stream), wait the
///   server's `retry:` (at least 100 ms: a server cannot make the reader spin) or ``delay``
///   (3 s), then connect again with `Last-Event-ID`.
/// - When connecting fails with a transient ``TransportError`` (timed out, refused, lost), or a
///   stream drops that way before its first event, wait twice as long after each failure in a
///   row (3 s, 6 s, 12 s, ...), at most ``maxDelay``, and give up after ``maxFailedAttempts`` (6)
///   failures in a row, about a minute and a half of trying, with
///   ``ServerSentEventError/reconnectFailed(attempts:lastError:)``.
/// - A stream that ends cleanly without an event is reconnected to with the same doubling wait,
///   without a limit (a server may close idle streams).
/// - Any other failure (TLS or a pin, an invalid request, a refused token refresh, a corrupt
///   or oversized body) ends the stream at once with that error: connecting again cannot help.
///
/// ``never`` reads one connection: the stream finishes when it ends and throws when it drops, as
/// an LLM completion (a `POST` that must not be sent twice) needs.
public struct ReconnectPolicy: Sendable, Hashable {
    /// The wait before connecting again when the server sent no `retry:`. Default: 3 s, as
    /// Chromium's `EventSource`.
    public var delay: Duration
    /// The longest wait: caps the server's `retry:` and the backoff. Default: 5 minutes.
    public var maxDelay: Duration
    /// How many attempts in a row may fail to connect before the stream gives up. A connection
    /// that got its `200 text/event-stream` head resets the count. Default: 6.
    public var maxFailedAttempts: Int
    /// Whether the stream connects again at all after its first connection ends.
    package var reconnects: Bool

    /// Creates a policy that reconnects.
    ///
    /// - Parameters:
    ///   - delay: The wait when the server sent no `retry:`. Default: 3 s.
    ///   - maxDelay: The longest wait. Default: 5 minutes.
    ///   - maxFailedAttempts: Failed connection attempts in a row before giving up (at least 1).
    ///     Default: 6.
    public init(delay: Duration = .seconds(3), maxDelay: Duration = .seconds(300), maxFailedAttempts: Int = 6) {
        self.delay = max(.zero, delay)
        self.maxDelay = max(.zero, maxDelay)
        self.maxFailedAttempts = max(1, maxFailedAttempts)
        reconnects = true
    }

    /// Never reconnects: the stream is one connection's events.
    public static let never: ReconnectPolicy = {
        var policy = ReconnectPolicy()
        policy.reconnects = false
        return policy
    }()
}
