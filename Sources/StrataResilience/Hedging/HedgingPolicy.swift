import Strata

/// What a ``HedgingTransport`` hedges, how long it waits before each hedge, and how many hedges
/// its budget allows.
///
/// ```swift
/// // One hedge after 150 ms, at most ~10% extra load.
/// HedgingPolicy(delay: .fixed(.milliseconds(150)))
/// // Up to two hedges after the p95 of recent latencies per origin, at most ~5% extra load.
/// HedgingPolicy(maxHedgedAttempts: 2, delay: .percentile(0.95), budget: HedgingBudget(ratio: 0.05))
/// ```
///
/// The defaults follow Polly v8's `HedgingStrategyOptions` (`MaxHedgedAttempts` 1, `Delay`
/// 2 s) and bound the extra load as gRPC's `retryThrottling` and Finagle's backup-request
/// budget do (``HedgingBudget``).
public struct HedgingPolicy: Sendable {
    /// The most hedges a request may have, on top of its first attempt: 0 to ``maxHedgedAttemptsLimit``.
    public var maxHedgedAttempts: Int
    /// How long each attempt is given before the next hedge is sent.
    public var delay: HedgingDelay
    /// The share of extra load hedges may add, or `nil` for no limit (every slow request is
    /// hedged: only for a dependency you own and have sized for it).
    public var budget: HedgingBudget?

    /// The most hedges ``maxHedgedAttempts`` allows: four sends of one request is already a lot
    /// of load for a tail (gRPC allows five, the first included).
    public static var maxHedgedAttemptsLimit: Int { 3 }

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - maxHedgedAttempts: The most hedges per request on top of the first attempt, clamped to
    ///     `0...3`; 0 turns hedging off. Default 1 (Polly's `MaxHedgedAttempts`).
    ///   - delay: How long each attempt is given before the next hedge. Default
    ///     `.fixed(.seconds(2))` (Polly's `Delay`); a percentile of your own latencies fits most
    ///     services better (see ``HedgingDelay``).
    ///   - budget: The extra load hedges may add. Default `HedgingBudget()`: ratio 0.1, 10 tokens.
    public init(
        maxHedgedAttempts: Int = 1, delay: HedgingDelay = .fixed(.seconds(2)),
        budget: HedgingBudget? = HedgingBudget()
    ) {
        self.maxHedgedAttempts = min(max(maxHedgedAttempts, 0), Self.maxHedgedAttemptsLimit)
        self.delay = delay
        self.budget = budget
    }
}
