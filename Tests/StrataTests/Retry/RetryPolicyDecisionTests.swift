#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import Testing

private func s(_ seconds: Double) -> Duration { .seconds(seconds) }

@Suite("RetryPolicy decisions (pure)")
struct RetryPolicyDecisionTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func decide(
        _ outcome: RetryOutcome, policy: RetryPolicy = RetryPolicy(),
        request: HTTPRequest = RetryFixtures.request(), retriesSoFar: Int = 0,
        random: Double = 0.5
    ) -> RetryDecision {
        policy.decision(for: outcome, request: request, retriesSoFar: retriesSoFar, now: now, random: { random })
    }

    private func status(_ code: Int, headers: HTTPHeaders = [:]) -> RetryOutcome {
        .response(HTTPResponse(statusCode: code, headers: headers))
    }

    // MARK: What is retried

    @Test(
        "each default retryable status is retried, with the status as the reason",
        arguments: [408, 429, 500, 502, 503, 504])
    func retryableStatuses(code: Int) {
        guard case .retry(let plan) = decide(status(code)) else {
            Issue.record("\(code) was not retried")
            return
        }
        #expect(plan.reason == .status(code))
    }

    @Test("success, 304, 401, 403, 404 and 501 are not retried", arguments: [200, 204, 304, 401, 403, 404, 501])
    func nonRetryableStatuses(code: Int) {
        #expect(decide(status(code)) == .stop(.notRetryable))
    }

    @Test(
        "timeouts, refused and lost connections are retried with their kind as the reason",
        arguments: [TransportError.Kind.timedOut, .cannotConnect, .connectionLost])
    func transientErrors(kind: TransportError.Kind) {
        guard case .retry(let plan) = decide(.failure(TransportError(kind))) else {
            Issue.record("\(kind) was not retried")
            return
        }
        #expect(plan.reason == .transportError(kind))
    }

    @Test(
        "TLS, invalid request/response, redirect loops and other failures are not retried",
        arguments: [TransportError.Kind.tls, .invalidRequest, .invalidResponse, .tooManyRedirects, .other])
    func nonTransientErrors(kind: TransportError.Kind) {
        #expect(decide(.failure(TransportError(kind))) == .stop(.notRetryable))
    }

    @Test("a request whose body is a single-pass stream is not retried: the first send consumed it")
    func streamBodyNotRetried() {
        var request = RetryFixtures.request(.put)
        request.body = HTTPBody(AsyncStream<ArraySlice<UInt8>> { $0.finish() }, length: nil)
        #expect(decide(status(503), request: request) == .stop(.bodyNotReplayable))
        #expect(decide(.failure(TransportError(.connectionLost)), request: request) == .stop(.bodyNotReplayable))
    }

    @Test("errors that are not TransportError (a layer's own, URLError) are not retried")
    func foreignErrors() {
        #expect(decide(.failure(URLError(.timedOut))) == .stop(.notRetryable))
        #expect(decide(.failure(HTTPHeaderError.invalidName(""))) == .stop(.notRetryable))
    }

    @Test("CancellationError is never retried")
    func cancellation() {
        #expect(decide(.failure(CancellationError())) == .stop(.cancelled))
    }

    @Test("a status the caller adds to the list is retried, one removed from it is not")
    func customStatusList() {
        let policy = RetryPolicy(retryableStatusCodes: [520])
        #expect(decide(status(520), policy: policy) != .stop(.notRetryable))
        #expect(decide(status(503), policy: policy) == .stop(.notRetryable))
    }

    // MARK: Methods and Idempotency-Key

    @Test("POST and PATCH are not retried by default", arguments: [HTTPMethod.post, .patch])
    func nonIdempotentMethods(method: HTTPMethod) {
        #expect(decide(status(503), request: RetryFixtures.request(method)) == .stop(.methodNotRetryable(method)))
    }

    @Test("every idempotent method is retried by default", arguments: [HTTPMethod.get, .head, .options, .trace, .put, .delete])
    func idempotentMethods(method: HTTPMethod) {
        #expect(decide(status(503), request: RetryFixtures.request(method)) != .stop(.methodNotRetryable(method)))
    }

    @Test("a POST carrying an Idempotency-Key is retried")
    func idempotencyKey() {
        let request = RetryFixtures.request(.post, headers: ["Idempotency-Key": "8e03978e-40d5-43e8-bc93-6894a57f9324"])
        #expect(decide(status(503), request: request) != .stop(.methodNotRetryable(.post)))
    }

    @Test("an empty Idempotency-Key does not opt a POST in")
    func emptyIdempotencyKey() {
        let request = RetryFixtures.request(.post, headers: ["Idempotency-Key": ""])
        #expect(decide(status(503), request: request) == .stop(.methodNotRetryable(.post)))
    }

    @Test("a PATCH is retried when the caller lists it in retryableMethods")
    func listedMethod() {
        let policy = RetryPolicy(retryableMethods: [.get, .patch])
        #expect(decide(status(503), policy: policy, request: RetryFixtures.request(.patch)) != .stop(.methodNotRetryable(.patch)))
    }

    // MARK: Counting

    @Test("maxRetries counts retries after the first attempt: retry 3 is allowed, a 4th is not")
    func maxRetriesCounting() {
        let policy = RetryPolicy(maxRetries: 3)
        #expect(decide(status(503), policy: policy, retriesSoFar: 2) != .stop(.retriesExhausted))
        #expect(decide(status(503), policy: policy, retriesSoFar: 3) == .stop(.retriesExhausted))
        #expect(decide(status(503), policy: RetryPolicy(maxRetries: 0)) == .stop(.retriesExhausted))
        #expect(RetryPolicy(maxRetries: -2).maxRetries == 0)
    }

    // MARK: Delays per jitter mode (scripted random numbers, exact results)

    @Test("no jitter: base × 2ⁿ, capped at maxDelay")
    func noJitter() {
        let policy = RetryPolicy(baseDelay: s(0.5), maxDelay: s(3), jitter: .none)
        let delays = (0..<5).map { policy.backoff(retry: $0, previous: nil, random: { 0.9 }) }
        #expect(delays == [0.5, 1, 2, 3, 3].map(s))
    }

    @Test("full jitter: U(0, v) is v × random")
    func fullJitter() {
        let policy = RetryPolicy(baseDelay: s(0.5), maxDelay: s(30), jitter: .full)
        #expect(policy.backoff(retry: 0, previous: nil, random: { 0.5 }) == s(0.25))
        #expect(policy.backoff(retry: 2, previous: nil, random: { 0.75 }) == s(1.5))
        #expect(policy.backoff(retry: 1, previous: nil, random: { 0 }) == s(0))
        #expect(policy.backoff(retry: 10, previous: nil, random: { 0.5 }) == s(15))
    }

    @Test("equal jitter: v/2 + U(0, v/2), never below half of v")
    func equalJitter() {
        let policy = RetryPolicy(baseDelay: s(0.5), maxDelay: s(30), jitter: .equal)
        #expect(policy.backoff(retry: 0, previous: nil, random: { 0 }) == s(0.25))
        #expect(policy.backoff(retry: 2, previous: nil, random: { 0.5 }) == s(1.5))
        #expect(policy.backoff(retry: 3, previous: nil, random: { 0.75 }) == s(3.5))
    }

    @Test("decorrelated jitter: min(maxDelay, U(base, previous × 3)), previous starting at base")
    func decorrelatedJitter() {
        let policy = RetryPolicy(baseDelay: s(0.5), maxDelay: s(4), jitter: .decorrelated)
        #expect(policy.backoff(retry: 0, previous: nil, random: { 0.5 }) == s(1)) // U(0.5, 1.5)
        #expect(policy.backoff(retry: 1, previous: s(1), random: { 0.25 }) == s(1.125)) // U(0.5, 3)
        #expect(policy.backoff(retry: 2, previous: s(2), random: { 0.5 }) == s(3.25)) // U(0.5, 6)
        #expect(policy.backoff(retry: 3, previous: s(3.25), random: { 0.75 }) == s(4)) // capped
    }

    @Test("with any seeded random number, each mode stays within its formula's bounds")
    func seededBounds() {
        var random = RetryFixtures.SeededRandom(seed: 42)
        let base = 0.1, cap = 5.0
        for retry in 0..<12 {
            let v = min(cap, base * pow(2, Double(retry)))
            for _ in 0..<50 {
                let draw = random.next()
                let full = RetryPolicy(baseDelay: s(base), maxDelay: s(cap), jitter: .full)
                    .backoff(retry: retry, previous: nil, random: { draw })
                let equal = RetryPolicy(baseDelay: s(base), maxDelay: s(cap), jitter: .equal)
                    .backoff(retry: retry, previous: nil, random: { draw })
                let decorrelated = RetryPolicy(baseDelay: s(base), maxDelay: s(cap), jitter: .decorrelated)
                    .backoff(retry: retry, previous: s(v), random: { draw })
                #expect((s(0)...s(v)).contains(full))
                #expect((s(v / 2)...s(v)).contains(equal))
                #expect((s(base)...s(min(cap, v * 3))).contains(decorrelated))
            }
        }
    }

    @Test("a faulty random source (NaN, negative, above 1) cannot make a delay negative or above the cap")
    func faultyRandom() {
        let policy = RetryPolicy(baseDelay: s(1), maxDelay: s(8), jitter: .full)
        for value in [Double.nan, -5, 7, .infinity] {
            #expect((s(0)...s(8)).contains(policy.backoff(retry: 3, previous: nil, random: { value })))
        }
    }

    @Test("absurd settings are clamped: no negative or endless delay, whatever the Duration or Double")
    func absurdSettings() {
        let policy = RetryPolicy(maxRetries: 1_000, baseDelay: .seconds(Int64.max), maxDelay: .seconds(-5), jitter: .none)
        #expect(policy.backoff(retry: 999, previous: nil, random: { 0.5 }) == .zero)
        let huge = RetryPolicy(baseDelay: .seconds(Int64.max), maxDelay: .seconds(Int64.max), jitter: .decorrelated)
        #expect(huge.backoff(retry: 999, previous: .seconds(Int64.max), random: { 1 }) == RetryPolicy.longestDelay)
        let limit = RetryPolicy.longestDelay
        #expect(Duration.clampedSeconds(.nan, limit: limit) == .zero)
        #expect(Duration.clampedSeconds(-1, limit: limit) == .zero)
        #expect(Duration.clampedSeconds(.infinity, limit: limit) == limit)
        #expect(Duration.clampedSeconds(1e300, limit: limit) == limit)
        #expect(Duration.clampedSeconds(2.5, limit: limit) == .milliseconds(2_500))
    }

    // MARK: Retry-After

    @Test("a 503 with Retry-After seconds waits exactly that long, not jittered downward")
    func retryAfterSeconds() {
        let decision = decide(status(503, headers: ["Retry-After": "7"]), random: 0)
        #expect(decision == .retry(RetryPlan(delay: s(7), reason: .status(503), delaySource: .retryAfter)))
    }

    @Test("a 429 with an HTTP-date Retry-After waits until that date")
    func retryAfterDate() {
        let date = "Fri, 15 Jan 2027 08:00:12 GMT" // 1_800_000_012
        let decision = decide(status(429, headers: ["Retry-After": date]))
        #expect(decision == .retry(RetryPlan(delay: s(12), reason: .status(429), delaySource: .retryAfter)))
    }

    @Test("a Retry-After date in the past means retry now")
    func retryAfterPast() {
        let decision = decide(status(503, headers: ["Retry-After": "Sun, 06 Nov 1994 08:49:37 GMT"]))
        #expect(decision == .retry(RetryPlan(delay: s(0), reason: .status(503), delaySource: .retryAfter)))
    }

    @Test("a malformed Retry-After falls back to the computed backoff")
    func retryAfterGarbage() {
        let policy = RetryPolicy(baseDelay: s(0.5), jitter: .full)
        let decision = decide(status(503, headers: ["Retry-After": "soon, please"]), policy: policy, random: 0.5)
        #expect(decision == .retry(RetryPlan(delay: s(0.25), reason: .status(503), delaySource: .backoff)))
    }

    @Test("a Retry-After longer than maxRetryAfter stops retrying")
    func retryAfterOverCap() {
        let policy = RetryPolicy(maxRetryAfter: s(60))
        #expect(decide(status(503, headers: ["Retry-After": "61"]), policy: policy) == .stop(.retryAfterTooLong(s(61))))
        #expect(
            decide(status(503, headers: ["Retry-After": "60"]), policy: policy)
                == .retry(RetryPlan(delay: s(60), reason: .status(503), delaySource: .retryAfter)))
    }

    @Test("Retry-After is honoured only on 429 and 503; on a 500 backoff applies")
    func retryAfterOnlyOn429And503() {
        let policy = RetryPolicy(baseDelay: s(0.5), jitter: .none)
        let decision = decide(status(500, headers: ["Retry-After": "9999"]), policy: policy)
        #expect(decision == .retry(RetryPlan(delay: s(0.5), reason: .status(500), delaySource: .backoff)))
    }

    @Test("retries already exhausted win over a Retry-After")
    func exhaustedBeforeRetryAfter() {
        let decision = decide(status(503, headers: ["Retry-After": "1"]), policy: RetryPolicy(maxRetries: 1), retriesSoFar: 1)
        #expect(decision == .stop(.retriesExhausted))
    }
}

@Suite("RetryPolicy decisions under a request deadline (pure)")
struct RetryDeadlineDecisionTests {
    @Test("a retry whose wait would not end before the deadline stops with timeoutWouldPass")
    func waitPastDeadline() {
        let policy = RetryPolicy(baseDelay: .seconds(1), jitter: .none)
        let outcome = RetryOutcome.response(HTTPResponse(statusCode: 503))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let decide = { (timeLeft: Duration?) in
            policy.decision(
                for: outcome, request: RetryFixtures.request(), retriesSoFar: 0, now: now,
                random: { 0.5 }, timeLeft: timeLeft)
        }
        #expect(decide(nil) == .retry(RetryPlan(delay: .seconds(1), reason: .status(503), delaySource: .backoff)))
        #expect(decide(.milliseconds(1_001)) == .retry(RetryPlan(delay: .seconds(1), reason: .status(503), delaySource: .backoff)))
        #expect(decide(.seconds(1)) == .stop(.timeoutWouldPass))
        #expect(decide(.zero) == .stop(.timeoutWouldPass))
    }
}

@Suite("RetryPolicy decisions read the clock only when they need it")
struct RetryClockReadingTests {
    /// Counts the reads of the clock and of the deadline that a decision makes.
    private final class Reads {
        var clock = 0, deadline = 0
        func now() -> Date { clock += 1; return Date(timeIntervalSince1970: 1_800_000_000) }
        func timeLeft() -> Duration? { deadline += 1; return .seconds(60) }
    }

    private func reads(for response: HTTPResponse) -> (clock: Int, deadline: Int) {
        let reads = Reads()
        _ = RetryPolicy().decision(
            for: .response(response), request: RetryFixtures.request(), retriesSoFar: 0,
            now: reads.now(), random: { 0.5 }, timeLeft: reads.timeLeft())
        return (reads.clock, reads.deadline)
    }

    @Test("a success reads neither; a retry reads the deadline, and the clock only for a Retry-After")
    func lazyReads() {
        #expect(reads(for: HTTPResponse(statusCode: 200)) == (0, 0))
        #expect(reads(for: HTTPResponse(statusCode: 404)) == (0, 0))
        #expect(reads(for: HTTPResponse(statusCode: 503)) == (0, 1))
        #expect(reads(for: HTTPResponse(statusCode: 503, headers: ["Retry-After": "Fri, 15 Jan 2027 08:00:12 GMT"])) == (1, 1))
    }
}
