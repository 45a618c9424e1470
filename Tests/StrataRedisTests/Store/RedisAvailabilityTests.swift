@testable import StrataRedis
import Testing

@Suite("RedisAvailability: leave a failing Redis alone, probe once, recover")
struct RedisAvailabilityTests {
    let start = Duration.seconds(1_000)

    @Test("Redis is asked until it fails, then skipped for the delay with the time left")
    func skipsAfterFailure() {
        var availability = RedisAvailability(initialDelay: .milliseconds(100), maxDelay: .seconds(5))
        #expect(availability.admit(at: start) == .attempt)
        availability.recordFailure(at: start, reason: "refused")
        #expect(
            availability.admit(at: start + .milliseconds(30))
                == .skip(retryAfter: .milliseconds(70), lastFailure: "refused"))
    }

    @Test("after the delay exactly one operation probes; the others keep skipping until it reports")
    func singleProbe() {
        var availability = RedisAvailability(initialDelay: .milliseconds(100), maxDelay: .seconds(5))
        availability.recordFailure(at: start, reason: "refused")
        let later = start + .milliseconds(100)
        #expect(availability.admit(at: later) == .attempt)
        #expect(availability.admit(at: later) == .skip(retryAfter: .zero, lastFailure: "refused"))
        availability.recordInconclusive()
        #expect(availability.admit(at: later) == .attempt)
    }

    @Test("each failed probe doubles the delay up to the maximum; failures already in flight do not")
    func backoff() {
        var availability = RedisAvailability(initialDelay: .milliseconds(100), maxDelay: .milliseconds(300))
        availability.recordFailure(at: start, reason: "a")
        availability.recordFailure(at: start, reason: "b") // in flight when the circuit opened
        var now = start + .milliseconds(100)
        #expect(availability.admit(at: now) == .attempt)
        for expected in [200, 300, 300] {
            availability.recordFailure(at: now, reason: "c")
            #expect(availability.admit(at: now) == .skip(retryAfter: .milliseconds(expected), lastFailure: "c"))
            now += .milliseconds(expected)
            #expect(availability.admit(at: now) == .attempt)
        }
    }

    @Test("success closes the circuit, reports how many operations missed, and resets the delay")
    func recovery() {
        var availability = RedisAvailability(initialDelay: .milliseconds(100), maxDelay: .seconds(5))
        #expect(availability.recordSuccess() == nil)
        availability.recordFailure(at: start, reason: "refused")
        _ = availability.admit(at: start)
        _ = availability.admit(at: start)
        #expect(availability.admit(at: start + .milliseconds(100)) == .attempt)
        #expect(availability.recordSuccess() == 3)
        #expect(availability.admit(at: start) == .attempt)
        availability.recordFailure(at: start, reason: "again")
        #expect(availability.admit(at: start) == .skip(retryAfter: .milliseconds(100), lastFailure: "again"))
    }
}
