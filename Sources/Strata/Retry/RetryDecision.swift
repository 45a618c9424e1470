/// What ``RetryPolicy`` decided about one attempt: send again after a delay, or stop and hand the
/// outcome to the caller.
public enum RetryDecision: Sendable, Hashable {
    /// Send the request again after ``RetryPlan/delay`` seconds.
    case retry(RetryPlan)
    /// Return the response or throw the error of this attempt, for the given reason.
    case stop(RetryStopReason)
}

/// A planned retry: how long to wait, why, and where the wait came from.
public struct RetryPlan: Sendable, Hashable {
    /// Where a retry's delay came from.
    public enum DelaySource: Sendable, Hashable {
        /// Exponential backoff with the policy's jitter.
        case backoff
        /// The response's `Retry-After` header, used as given (never jittered downward).
        case retryAfter
    }

    /// Seconds to wait before the next send.
    public var delay: Double
    /// What failed.
    public var reason: RetryReason
    /// Whether the delay is computed backoff or the server's `Retry-After`.
    public var delaySource: DelaySource

    /// Creates a plan.
    public init(delay: Double, reason: RetryReason, delaySource: DelaySource) {
        self.delay = delay
        self.reason = reason
        self.delaySource = delaySource
    }
}

/// Why an attempt is worth retrying.
public enum RetryReason: Sendable, Hashable, CustomStringConvertible {
    /// The response's status is in ``RetryPolicy/retryableStatusCodes``.
    case status(Int)
    /// The network failed transiently (``TransportError/isTransient``).
    case transportError(TransportError.Kind)

    /// For example `status 503` or `cannot connect`.
    public var description: String {
        switch self {
        case .status(let code): "status \(code)"
        case .transportError(let kind): kind.rawValue
        }
    }
}

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
    /// The server's `Retry-After` (in seconds) is longer than ``RetryPolicy/maxRetryAfter``.
    case retryAfterTooLong(Double)
    /// The body is an `httpBodyStream`, already consumed by the first send: it cannot be sent
    /// again. Use `httpBody` for requests that may be retried.
    case bodyNotReplayable

    /// A short explanation for logs.
    public var description: String {
        switch self {
        case .notRetryable: "the outcome is not retryable"
        case .cancelled: "the task was cancelled"
        case .methodNotRetryable(let method): "\(method) is not retried without an Idempotency-Key"
        case .retriesExhausted: "no retries left"
        case .retryAfterTooLong(let seconds): "Retry-After of \(seconds) s exceeds maxRetryAfter"
        case .bodyNotReplayable: "the body stream was consumed by the first send"
        }
    }
}
