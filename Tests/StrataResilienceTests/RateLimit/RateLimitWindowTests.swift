import Strata
@testable import StrataResilience
import Testing

@Suite("RateLimitWindow decides on each request from the server's hold and the client's own bucket")
struct RateLimitWindowTests {
    private let maxHold = Duration.seconds(60)
    private let maxWait = Duration.seconds(30)

    private func admit(
        _ window: inout RateLimitWindow, at now: Duration, limit: RateLimitPolicy.ClientLimit? = nil,
        maxWait: Duration? = nil, timeLeft: Duration? = nil
    ) -> RateLimitWindow.Admission {
        window.admit(now: now, clientLimit: limit, maxWait: maxWait ?? self.maxWait, timeLeft: timeLeft)
    }

    @Test("a closed window makes a request wait exactly until it reopens, and a reopened one lets it go")
    func holdThenReopen() {
        var window = RateLimitWindow()
        #expect(window.close(for: .seconds(2), source: .retryAfter, now: .seconds(10), maxHold: maxHold) == .seconds(2))
        #expect(admit(&window, at: .seconds(10)) == .wait(.seconds(2), source: .retryAfter))
        #expect(admit(&window, at: .milliseconds(11_500)) == .wait(.milliseconds(500), source: .retryAfter))
        #expect(admit(&window, at: .seconds(12)) == .proceed)
        #expect(admit(&window, at: .seconds(20)) == .proceed)
    }

    @Test("a response never shortens a closed window, only extends it, and a hold is cut to maxHold")
    func onlyExtends() {
        var window = RateLimitWindow()
        _ = window.close(for: .seconds(30), source: .rateLimit, now: .zero, maxHold: maxHold)
        #expect(window.close(for: .seconds(5), source: .retryAfter, now: .seconds(1), maxHold: maxHold) == nil)
        #expect(window.close(for: .seconds(29), source: .retryAfter, now: .seconds(1), maxHold: maxHold) == nil)
        #expect(window.closedUntil == .seconds(30))
        #expect(window.close(for: .seconds(31_536_000), source: .retryAfter, now: .seconds(1), maxHold: maxHold) == .seconds(60))
        #expect(window.closedUntil == .seconds(61))
        #expect(window.closedBy == .retryAfter)
        #expect(window.close(for: .seconds(5), source: .retryAfter, now: .zero, maxHold: .zero) == nil)
    }

    @Test("a wait beyond maxWait, or not ending before the deadline, is refused and reserves nothing")
    func refusals() {
        var window = RateLimitWindow()
        _ = window.close(for: .seconds(45), source: .retryAfter, now: .zero, maxHold: maxHold)
        #expect(admit(&window, at: .zero) == .reject(reopensIn: .seconds(45), source: .retryAfter, limit: .maxWait(.seconds(30))))
        #expect(admit(&window, at: .seconds(20)) == .wait(.seconds(25), source: .retryAfter))
        #expect(
            admit(&window, at: .seconds(20), timeLeft: .seconds(10))
                == .reject(reopensIn: .seconds(25), source: .retryAfter, limit: .deadline(timeLeft: .seconds(10))))
        // Exactly at the deadline leaves no time to send.
        #expect(
            admit(&window, at: .seconds(20), timeLeft: .seconds(25))
                == .reject(reopensIn: .seconds(25), source: .retryAfter, limit: .deadline(timeLeft: .seconds(25))))
        #expect(admit(&window, at: .seconds(20), timeLeft: .seconds(26)) == .wait(.seconds(25), source: .retryAfter))
        // An open window lets a request with no time left go: the transport below reports its timeout.
        #expect(admit(&window, at: .seconds(50), timeLeft: .zero) == .proceed)
    }

    @Test("the client limit lets a burst go, then spaces requests one interval apart, each reserving the next token")
    func tokenBucket() {
        var window = RateLimitWindow()
        let limit = RateLimitPolicy.ClientLimit(requestsPerSecond: 2, burst: 3)
        let answers = (0..<6).map { _ in admit(&window, at: .zero, limit: limit) }
        #expect(
            answers == [
                .proceed, .proceed, .proceed, .wait(.milliseconds(500), source: .clientLimit),
                .wait(.seconds(1), source: .clientLimit), .wait(.milliseconds(1_500), source: .clientLimit),
            ])
        // Long idle: the bucket is full again.
        #expect(window.isAtRest(now: .seconds(10)))
        #expect((0..<4).map { _ in admit(&window, at: .seconds(10), limit: limit) }.last == .wait(.milliseconds(500), source: .clientLimit))
    }

    @Test("a request refused by the client limit takes no token: the next one is due as before")
    func refusedTakesNoToken() {
        var window = RateLimitWindow()
        let limit = RateLimitPolicy.ClientLimit(requestsPerSecond: 1)
        #expect(admit(&window, at: .zero, limit: limit) == .proceed)
        #expect(
            admit(&window, at: .zero, limit: limit, maxWait: .milliseconds(500))
                == .reject(reopensIn: .seconds(1), source: .clientLimit, limit: .maxWait(.milliseconds(500))))
        #expect(admit(&window, at: .zero, limit: limit) == .wait(.seconds(1), source: .clientLimit))
    }

    @Test("with the server's window closed, tokens are reserved from its reopening, the server named while it is the later")
    func bucketAfterHold() {
        var window = RateLimitWindow()
        let limit = RateLimitPolicy.ClientLimit(requestsPerSecond: 1)
        _ = window.close(for: .seconds(5), source: .xRateLimitReset, now: .zero, maxHold: maxHold)
        #expect(admit(&window, at: .zero, limit: limit) == .wait(.seconds(5), source: .xRateLimitReset))
        #expect(admit(&window, at: .zero, limit: limit) == .wait(.seconds(6), source: .clientLimit))
        // A re-check after a wait takes no token.
        #expect(admit(&window, at: .seconds(5)) == .proceed)
        #expect(!window.isAtRest(now: .seconds(6)))
        #expect(window.isAtRest(now: .seconds(7)))
    }

    @Test("clamped limits: no rate, a zero or negative burst, NaN, keep every wait finite")
    func clampedClientLimit() {
        #expect(RateLimitPolicy.ClientLimit(requestsPerSecond: 0, burst: 0).interval == .seconds(1_000))
        #expect(RateLimitPolicy.ClientLimit(requestsPerSecond: .nan, burst: -3).effectiveBurst == 1)
        #expect(RateLimitPolicy.ClientLimit(requestsPerSecond: .infinity).interval == .microseconds(1))
        #expect(RateLimitPolicy(maxWait: .seconds(-1), maxHold: .seconds(-1)).effectiveMaxWait == .zero)
    }
}
