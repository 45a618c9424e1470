/// The one token bucket shared by every request (and every copy) of a ``RetryTransport``.
final class SharedRetryBudget: Sendable {
    private let bucket: LockedValue<RetryTokenBucket>

    init(_ budget: RetryBudget) {
        bucket = LockedValue(RetryTokenBucket(budget: budget))
    }

    /// The tokens left.
    var tokens: Int { bucket.withLock { $0.tokens } }

    /// Withdraws the cost of a retry for `reason`; `nil` when the budget does not allow it.
    func withdraw(for reason: RetryReason) -> Int? {
        bucket.withLock { $0.withdraw(for: reason) }
    }

    /// Records a non-retryable response (see ``RetryTokenBucket/recordSuccess(lastRetryCost:)``).
    func recordSuccess(lastRetryCost: Int?) {
        bucket.withLock { $0.recordSuccess(lastRetryCost: lastRetryCost) }
    }
}
