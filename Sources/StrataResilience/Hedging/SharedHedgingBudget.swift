import Strata

/// The one hedging token bucket shared by every request (and every copy) of a
/// ``HedgingTransport``.
final class SharedHedgingBudget: Sendable {
    private let bucket: LockedValue<HedgingTokenBucket>

    init(_ budget: HedgingBudget) {
        bucket = LockedValue(HedgingTokenBucket(budget: budget))
    }

    /// The tokens left.
    var tokens: Double { bucket.withLock { $0.tokens } }

    /// Deposits one request's share.
    func recordRequest() {
        bucket.withLock { $0.recordRequest() }
    }

    /// Withdraws one token; `false` when the budget does not allow another hedge.
    func withdrawHedge() -> Bool {
        bucket.withLock { $0.withdrawHedge() }
    }
}
