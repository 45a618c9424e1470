/// The level of a ``HedgingBudget``'s bucket and its arithmetic, as a value (the transport keeps
/// it behind a lock, in ``SharedHedgingBudget``).
package struct HedgingTokenBucket: Sendable, Hashable {
    /// Tokens are counted in thousandths, so that ten deposits of 0.1 make exactly one token
    /// (in `Double`, they make 0.9999999999999999, and the tenth request could not hedge).
    static let unit = 1_000

    /// The capacity, in thousandths of a token.
    let capacity: Int
    /// The deposit per request, in thousandths of a token.
    let deposit: Int
    /// The level, in thousandths of a token.
    private(set) var level: Int

    /// Creates a full bucket for `budget`.
    package init(budget: HedgingBudget) {
        // Re-clamped: the properties are settable after the budget's own clamping.
        let budget = HedgingBudget(ratio: budget.ratio, maxTokens: budget.maxTokens)
        capacity = budget.maxTokens * Self.unit
        deposit = Int((budget.ratio * Double(Self.unit)).rounded())
        level = capacity
    }

    /// The tokens in the bucket.
    package var tokens: Double { Double(level) / Double(Self.unit) }

    /// Deposits one request's share, up to the capacity.
    package mutating func recordRequest() {
        level = min(capacity, level + deposit)
    }

    /// Withdraws one token for a hedge.
    ///
    /// - Returns: Whether the hedge may be sent; `false` leaves the bucket as it was.
    package mutating func withdrawHedge() -> Bool {
        guard level >= Self.unit else { return false }
        level -= Self.unit
        return true
    }
}
