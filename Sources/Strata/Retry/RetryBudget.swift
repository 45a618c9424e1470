/// A token bucket that limits retries across all requests through one ``RetryTransport``, so a
/// dependency that fails every request receives about one send per request instead of
/// `maxRetries + 1` (the "retry storm" that keeps an overloaded server down).
///
/// The arithmetic is the AWS SDKs' "standard" retry quota (the same idea as gRPC's retry
/// throttling, gRFC A6):
/// - The bucket starts full, with ``maxTokens``.
/// - Each retry withdraws ``retryCost`` tokens (``timeoutRetryCost`` after a timeout, which ties
///   up the server longer). With too few tokens the request is not retried: its last response is
///   returned, or its last error thrown.
/// - Each response whose status is not retryable (a 2xx, or a 4xx the policy does not retry)
///   deposits tokens back: the cost of that request's last retry if it was retried, otherwise
///   ``successReward``. The bucket never holds more than ``maxTokens``.
///
/// With the defaults (500, 5, 10, 1) a healthy service always has retries available; under a
/// total outage about 100 retries are spent and then each request is sent once, until successes
/// refill the bucket.
public struct RetryBudget: Sendable, Hashable {
    /// The bucket's capacity and starting level.
    public var maxTokens: Int
    /// Tokens one retry after a retryable status or a lost/refused connection costs.
    public var retryCost: Int
    /// Tokens one retry after a timeout costs.
    public var timeoutRetryCost: Int
    /// Tokens a non-retried success deposits.
    public var successReward: Int

    /// Creates a budget. Negative values count as zero; a zero cost makes that kind of retry free.
    ///
    /// - Parameters:
    ///   - maxTokens: Capacity and starting level (AWS: 500).
    ///   - retryCost: Cost of a retry after a retryable status or connection failure (AWS: 5).
    ///   - timeoutRetryCost: Cost of a retry after a timeout (AWS: 10).
    ///   - successReward: Deposit for a success that needed no retry (AWS: 1).
    public init(maxTokens: Int = 500, retryCost: Int = 5, timeoutRetryCost: Int = 10, successReward: Int = 1) {
        self.maxTokens = max(0, maxTokens)
        self.retryCost = max(0, retryCost)
        self.timeoutRetryCost = max(0, timeoutRetryCost)
        self.successReward = max(0, successReward)
    }

    /// The cost of a retry for `reason`.
    func cost(of reason: RetryReason) -> Int {
        reason == .transportError(.timedOut) ? timeoutRetryCost : retryCost
    }
}

/// The level of a ``RetryBudget``'s bucket and its arithmetic, as a value (the transport keeps it
/// behind a lock).
struct RetryTokenBucket: Sendable, Hashable {
    let budget: RetryBudget
    private(set) var tokens: Int

    init(budget: RetryBudget) {
        // Re-clamped: the properties are settable after the budget's own clamping.
        self.budget = RetryBudget(
            maxTokens: budget.maxTokens, retryCost: budget.retryCost,
            timeoutRetryCost: budget.timeoutRetryCost, successReward: budget.successReward)
        tokens = self.budget.maxTokens
    }

    /// Withdraws the cost of a retry for `reason` if the bucket holds enough.
    ///
    /// - Returns: The tokens withdrawn, or `nil` when the retry is not allowed.
    mutating func withdraw(for reason: RetryReason) -> Int? {
        let cost = budget.cost(of: reason)
        guard tokens >= cost else { return nil }
        tokens -= cost
        return cost
    }

    /// Records a non-retryable response: refunds `lastRetryCost` if the request was retried,
    /// else deposits the success reward.
    mutating func recordSuccess(lastRetryCost: Int?) {
        // Subtracting first cannot overflow, whatever maxTokens is.
        tokens += min(budget.maxTokens - tokens, lastRetryCost ?? budget.successReward)
    }
}
