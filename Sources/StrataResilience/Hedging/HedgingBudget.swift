/// How many hedges a ``HedgingTransport`` may send, as a share of its requests: a slow
/// dependency is then not sent twice its load.
///
/// The arithmetic is a token bucket, as Finagle's retry budget (which also bounds its backup
/// requests) and gRPC's `retryThrottling` (gRFC A6, whose example is `maxTokens: 10,
/// tokenRatio: 0.1`) do:
/// - The bucket starts full, with ``maxTokens``.
/// - Each request that may be hedged deposits ``ratio`` tokens; the bucket never holds more than
///   ``maxTokens``.
/// - Each hedge withdraws one token. With less than one token the hedge is not sent (the request
///   goes on with the attempts already in flight) and
///   ``HedgingEvent/skipped(hedge:reason:method:url:)`` says so.
///
/// With the defaults (0.1, 10) a busy service sends at most about one hedge per ten requests,
/// however slow its dependency gets, and a quiet one can still hedge ten requests in a row.
/// All requests through one transport, and its copies, share one bucket.
public struct HedgingBudget: Sendable, Hashable {
    /// The tokens each request that may be hedged deposits: the extra load allowed, as a share
    /// of requests. In `0...1`.
    public var ratio: Double
    /// The bucket's capacity and starting level: how many hedges may go out in a row after a
    /// quiet spell.
    public var maxTokens: Int

    /// Creates a budget.
    ///
    /// - Parameters:
    ///   - ratio: Tokens deposited per request that may be hedged, clamped to `0...1` (a NaN
    ///     counts as 0). Default 0.1: at most about 10% extra load (gRFC A6's example
    ///     `tokenRatio`).
    ///   - maxTokens: Capacity and starting level, clamped to `0...1_000_000`. Default 10
    ///     (gRFC A6's example `maxTokens`).
    public init(ratio: Double = 0.1, maxTokens: Int = 10) {
        self.ratio = ratio.isNaN ? 0 : min(max(ratio, 0), 1)
        self.maxTokens = min(max(maxTokens, 0), 1_000_000)
    }
}
