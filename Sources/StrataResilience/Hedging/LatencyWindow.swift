/// The recent latencies of one group of requests and a percentile of them, as a value (the
/// transport keeps one per group behind a lock, in a `PartitionedState`).
///
/// Cheap per request: a sample is written into a fixed ring, and the percentile is recomputed
/// (one sort of at most ``capacity`` values) only every ``recomputeInterval`` new samples, and
/// once when the window first holds ``minimumSamples``. Between two recomputations the
/// previous value is used.
package struct LatencyWindow: Sendable {
    /// The most samples kept: enough for a stable p99 (five values above it), small enough to
    /// sort in microseconds.
    package static let defaultCapacity = 512
    /// New samples between two recomputations: a sort every 32 requests, not on each.
    package static let defaultRecomputeInterval = 32

    /// The fraction of samples at or below the value reported, in `0...1`.
    package let percentile: Double
    /// The samples needed before ``percentileLatency`` is known.
    package let minimumSamples: Int
    /// The most samples kept; the oldest is overwritten first.
    package let capacity: Int
    /// New samples between two recomputations.
    package let recomputeInterval: Int

    private var samples: [Duration] = []
    /// Where the next sample goes once the ring is full.
    private var next = 0
    private var newSinceRecompute = 0
    /// The percentile of the samples at the last recomputation, or `nil` before there were
    /// ``minimumSamples``.
    package private(set) var percentileLatency: Duration?

    /// Creates an empty window.
    ///
    /// - Parameters:
    ///   - percentile: A fraction in `0...1`, clamped (a NaN counts as 1).
    ///   - minimumSamples: Clamped to `1...capacity`.
    ///   - capacity: At least 1.
    ///   - recomputeInterval: At least 1.
    package init(
        percentile: Double, minimumSamples: Int, capacity: Int = defaultCapacity,
        recomputeInterval: Int = defaultRecomputeInterval
    ) {
        self.percentile = percentile.isNaN ? 1 : min(max(percentile, 0), 1)
        self.capacity = max(1, capacity)
        self.minimumSamples = min(max(1, minimumSamples), self.capacity)
        self.recomputeInterval = max(1, recomputeInterval)
        samples.reserveCapacity(self.capacity)
    }

    /// How many samples are held.
    package var count: Int { samples.count }

    /// The delay to use: the percentile once known, `fallback` until then.
    package func delay(fallback: Duration) -> Duration { percentileLatency ?? fallback }

    /// Adds `latency` (negative values count as zero), overwriting the oldest sample when full,
    /// and recomputes the percentile when it is due.
    package mutating func record(_ latency: Duration) {
        let sample = max(.zero, latency)
        if samples.count < capacity {
            samples.append(sample)
        } else {
            samples[next] = sample
            next = (next + 1) % capacity
        }
        newSinceRecompute += 1
        guard samples.count >= minimumSamples else { return }
        guard percentileLatency == nil || newSinceRecompute >= recomputeInterval else { return }
        percentileLatency = Self.nearestRank(percentile, of: samples)
        newSinceRecompute = 0
    }

    /// The nearest-rank percentile: the smallest sample with at least `percentile` of the
    /// samples at or below it. `samples` is not empty.
    static func nearestRank(_ percentile: Double, of samples: [Duration]) -> Duration {
        let sorted = samples.sorted()
        // The tolerance keeps 0.7 × 10 (7.000000000000001 in binary) at rank 7, not 8.
        let rank = Int((percentile * Double(sorted.count) - 1e-9).rounded(.up))
        return sorted[min(max(rank - 1, 0), sorted.count - 1)]
    }
}
