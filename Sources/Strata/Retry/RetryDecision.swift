/// What ``RetryPolicy`` decided about one attempt: send again after a delay, or stop and hand the
/// outcome to the caller.
package enum RetryDecision: Sendable, Hashable {
    /// Send the request again after ``RetryPlan/delay``.
    case retry(RetryPlan)
    /// Return the response or throw the error of this attempt, for the given reason.
    case stop(RetryStopReason)
}

/// A planned retry: how long to wait, why, and where the wait came from.
package struct RetryPlan: Sendable, Hashable {
    /// How long to wait before the next send.
    package var delay: Duration
    /// What failed.
    package var reason: RetryReason
    /// Whether the delay is computed backoff or the server's `Retry-After`.
    package var delaySource: RetryEvent.DelaySource

    package init(delay: Duration, reason: RetryReason, delaySource: RetryEvent.DelaySource) {
        self.delay = delay
        self.reason = reason
        self.delaySource = delaySource
    }
}
