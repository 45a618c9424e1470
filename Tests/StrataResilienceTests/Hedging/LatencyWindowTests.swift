import Testing

@testable import StrataResilience

@Suite("LatencyWindow: a bounded ring and a percentile recomputed every N samples")
struct LatencyWindowTests {
    @Test("no percentile before minimumSamples: the fallback is the delay")
    func fallback() {
        var window = LatencyWindow(percentile: 0.9, minimumSamples: 3)
        window.record(.milliseconds(10))
        window.record(.milliseconds(20))
        #expect(window.percentileLatency == nil)
        #expect(window.delay(fallback: .seconds(2)) == .seconds(2))
        window.record(.milliseconds(30))
        #expect(window.delay(fallback: .seconds(2)) == .milliseconds(30))
    }

    @Test("the nearest-rank percentile", arguments: [(0.5, 5), (0.7, 7), (0.9, 9), (0.95, 10), (1.0, 10), (0.0, 1)])
    func nearestRank(percentile: Double, expected: Int) {
        var window = LatencyWindow(percentile: percentile, minimumSamples: 10)
        for value in [7, 3, 10, 1, 9, 2, 8, 4, 6, 5] { window.record(.milliseconds(value)) }
        #expect(window.percentileLatency == .milliseconds(expected))
    }

    @Test("the percentile is recomputed only every recomputeInterval new samples")
    func recomputeInterval() {
        var window = LatencyWindow(percentile: 1, minimumSamples: 1, recomputeInterval: 4)
        window.record(.milliseconds(10))
        #expect(window.percentileLatency == .milliseconds(10), "computed once as soon as there are enough")
        for _ in 0..<3 { window.record(.milliseconds(50)) }
        #expect(window.percentileLatency == .milliseconds(10), "three new samples: not yet")
        window.record(.milliseconds(50))
        #expect(window.percentileLatency == .milliseconds(50))
    }

    @Test("the ring keeps the last capacity samples: old slow ones age out")
    func ring() {
        var window = LatencyWindow(percentile: 1, minimumSamples: 1, capacity: 4, recomputeInterval: 1)
        window.record(.seconds(9))
        for _ in 0..<4 { window.record(.milliseconds(10)) }
        #expect(window.count == 4)
        #expect(window.percentileLatency == .milliseconds(10))
    }

    @Test("out-of-range settings are clamped")
    func clamped() {
        let window = LatencyWindow(percentile: 3, minimumSamples: 10_000, capacity: 0, recomputeInterval: 0)
        #expect(window.percentile == 1)
        #expect(window.capacity == 1)
        #expect(window.minimumSamples == 1)
        #expect(window.recomputeInterval == 1)
        #expect(LatencyWindow(percentile: .nan, minimumSamples: 0).percentile == 1)
    }
}
