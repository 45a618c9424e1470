import Strata

/// How long a ``HedgingTransport`` waits for an attempt before it sends the next one.
///
/// ```swift
/// .hedging(policy: HedgingPolicy(delay: .fixed(.milliseconds(150))))
/// // The 95th percentile of the first attempts' latencies to each origin, 2 s until 100 are known.
/// .hedging(policy: HedgingPolicy(delay: .percentile(0.95)))
/// ```
/// A hedge sent after the p95 goes out for about 5% of requests when the service is healthy,
/// which is why Finagle's `BackupRequestFilter` derives its send-after time from a latency
/// percentile and the extra load it allows. Pick the percentile to match ``HedgingBudget/ratio``:
/// a p90 delay with a 10% budget, a p95 or p99 delay for less.
public enum HedgingDelay: Sendable {
    /// The same delay for every request. Polly's `HedgingStrategyOptions.Delay` (default 2 s)
    /// and gRPC's `hedgingDelay` work this way.
    case fixed(Duration)

    /// The given percentile of recent latencies of this layer's first attempts, per group of
    /// `partition`.
    ///
    /// - `percentile` is a fraction in `0...1` (`0.95`, not `95`); values outside are clamped.
    /// - A sample is the time from the first send to its response (any status below 500), taken
    ///   from the last 512 such responses of the group. When a hedge answered first, the first
    ///   attempt's sample is how long it had been waiting then, a lower bound: the slow tail stays
    ///   in the window although its requests were cut. A 5xx (a fast `503` from an overloaded
    ///   server) and an error are not samples: they would pull the delay down just when a
    ///   second attempt hurts most.
    /// - Until a group has `minimumSamples` samples (default 100, so a p95 rests on at least five
    ///   values), `fallback` is used (default 2 s, Polly's default delay). The percentile is
    ///   recomputed every 32 new samples, never on every request.
    case percentile(
        Double, minimumSamples: Int = 100, fallback: Duration = .seconds(2),
        partition: RequestPartition = .origin)
}
