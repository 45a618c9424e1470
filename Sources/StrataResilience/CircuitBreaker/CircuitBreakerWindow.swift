import Strata

/// The recent calls of one circuit, as counts of calls and failures: a count-based ring of
/// outcomes, or ten time buckets sliding over a duration (resilience4j's two kinds of window).
///
/// A pure value: time is passed in, so every roll-over is tested without a clock.
package struct CircuitBreakerWindow: Sendable {
    /// How many buckets a time-based window keeps.
    package static var bucketCount: Int { 10 }

    /// The width of a time bucket; `nil` for a count-based window.
    private let bucketWidth: Duration?
    /// Count-based: the last outcomes (true = failed), `next` overwritten first.
    private var outcomes: [Bool] = []
    private var next = 0
    private var filled = 0
    private var failedInRing = 0
    /// Time-based: which absolute bucket number each slot holds, and its counts.
    private var bucketNumbers: [Int64] = []
    private var bucketCalls: [Int] = []
    private var bucketFailures: [Int] = []

    /// An empty window of the policy's kind.
    package init(_ window: CircuitBreakerPolicy.Window) {
        switch window {
        case .count(let calls):
            bucketWidth = nil
            outcomes = Array(repeating: false, count: max(1, calls))
        case .time(let duration):
            bucketWidth = duration / Self.bucketCount
            bucketNumbers = Array(repeating: .min, count: Self.bucketCount)
            bucketCalls = Array(repeating: 0, count: Self.bucketCount)
            bucketFailures = Array(repeating: 0, count: Self.bucketCount)
        }
    }

    /// Adds one call that ended at `now`.
    package mutating func record(failed: Bool, now: Duration) {
        guard let bucketWidth else {
            if filled == outcomes.count, outcomes[next] { failedInRing -= 1 }
            if failed { failedInRing += 1 }
            outcomes[next] = failed
            next = (next + 1) % outcomes.count
            filled = min(outcomes.count, filled + 1)
            return
        }
        let number = Self.bucketNumber(of: now, width: bucketWidth)
        let slot = Int(number.magnitude % UInt64(Self.bucketCount))
        if bucketNumbers[slot] != number {
            bucketNumbers[slot] = number
            bucketCalls[slot] = 0
            bucketFailures[slot] = 0
        }
        bucketCalls[slot] += 1
        if failed { bucketFailures[slot] += 1 }
    }

    /// The calls and failures in the window as of `now`.
    package func totals(now: Duration) -> (calls: Int, failures: Int) {
        guard let bucketWidth else {
            return (filled, failedInRing)
        }
        let current = Self.bucketNumber(of: now, width: bucketWidth)
        let oldest = current - Int64(Self.bucketCount) + 1
        var calls = 0
        var failures = 0
        for slot in bucketNumbers.indices where (oldest...current).contains(bucketNumbers[slot]) {
            calls += bucketCalls[slot]
            failures += bucketFailures[slot]
        }
        return (calls, failures)
    }

    /// The absolute number of the bucket `now` falls in.
    private static func bucketNumber(of now: Duration, width: Duration) -> Int64 {
        Int64((now.inSeconds / width.inSeconds).rounded(.down))
    }
}
