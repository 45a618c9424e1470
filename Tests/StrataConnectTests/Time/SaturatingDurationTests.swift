import StrataConnect
import Testing

@Suite("Durations convert to poll and semaphore units without overflow")
struct SaturatingDurationTests {
    @Test("huge durations saturate instead of trapping")
    func saturates() {
        #expect(Duration.seconds(Int64.max).saturatingNanoseconds == Int64.max)
        #expect(Duration.seconds(Int64.max).saturatingMillisecondsRoundedUp == Int64.max)
        #expect(Duration.seconds(Int64.min).saturatingNanoseconds == Int64.min)
        #expect(Duration.seconds(Int64.max / 1000).saturatingMillisecondsRoundedUp == Int64.max / 1000 * 1000)
    }

    @Test("ordinary durations convert exactly; milliseconds round up")
    func exact() {
        #expect(Duration.milliseconds(1500).saturatingNanoseconds == 1_500_000_000)
        #expect(Duration.nanoseconds(1).saturatingMillisecondsRoundedUp == 1)
        #expect(Duration.milliseconds(2).saturatingMillisecondsRoundedUp == 2)
        #expect(Duration.zero.saturatingMillisecondsRoundedUp == 0)
    }
}
