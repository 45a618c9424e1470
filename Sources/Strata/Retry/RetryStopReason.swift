/// Why a ``RetryTransport`` stopped and handed an attempt's outcome to the caller.
public enum RetryStopReason: Sendable, Hashable, CustomStringConvertible {
    /// The outcome is not one the policy retries: a success, a 4xx such as 401 or 403, a status
    /// not in the list, or a non-transient error (TLS, pinning, invalid request or response).
    case notRetryable
    /// The task was cancelled; `CancellationError` is never retried.
    case cancelled
    /// The method is not in ``RetryPolicy/retryableMethods`` and the request has no
    /// `Idempotency-Key`, so sending it twice might do its work twice.
    case methodNotRetryable(HTTPMethod)
    /// ``RetryPolicy/maxRetries`` retries were already made.
    case retriesExhausted
    /// The server's `Retry-After` is longer than ``RetryPolicy/maxRetryAfter``.
    case retryAfterTooLong(Duration)
    /// The body is an `httpBodyStream`, already consumed by the first send: it cannot be sent
    /// again. Use `httpBody` for requests that may be retried.
    case bodyNotReplayable
    /// The shared ``RetryBudget`` had too few tokens left: the dependency fails too often for
    /// retries to help.
    case budgetExhausted
    /// Waiting for the next attempt would pass the request's timeout (see ``RequestDeadline``).
    case timeoutWouldPass

    /// A short explanation for logs, such as `no retries left`.
    public var description: String {
        switch self {
        case .notRetryable: "the outcome is not retryable"
        case .cancelled: "the task was cancelled"
        case .methodNotRetryable(let method): "\(method) is not retried without an Idempotency-Key"
        case .retriesExhausted: "no retries left"
        case .retryAfterTooLong(let duration): "Retry-After of \(duration.readable) exceeds maxRetryAfter"
        case .bodyNotReplayable: "the body stream was consumed by the first send"
        case .budgetExhausted: "the retry budget is exhausted"
        case .timeoutWouldPass: "the next attempt would pass the request's timeout"
        }
    }
}
