/// How a request fared in a ``RetryTransport`` that sent it more than once: how many sends, how
/// long they took in all, and why the transport stopped.
///
/// A response or a ``TransportError`` that came through a retry carries one
/// (``HTTPResponse/retrySummary``, ``TransportError/retrySummary``), and their descriptions say
/// it: `The server answered 503 for https://… after 4 attempts in 3.52 s (no retries left).`
public struct RetrySummary: Sendable, Hashable, CustomStringConvertible {
    /// The sends made, the first included: `4` after three retries.
    public var attempts: Int
    /// The time from the first send to the end of the last, waits included, on the transport's
    /// clock.
    public var elapsed: Duration
    /// Why the transport stopped retrying.
    public var stopReason: RetryStopReason

    /// Creates a summary.
    package init(attempts: Int, elapsed: Duration, stopReason: RetryStopReason) {
        self.attempts = attempts
        self.elapsed = elapsed
        self.stopReason = stopReason
    }

    /// For example `after 4 attempts in 3.52 s (no retries left)`.
    public var description: String {
        "after \(attempts) attempts in \(elapsed.readable) (\(stopReason))"
    }
}
