import Foundation
import Strata
import Testing

@testable import StrataResilience

@Suite("Hedging decisions as pure values")
struct HedgingDecisionTests {
    @Test("idempotent methods and requests with an Idempotency-Key are hedgeable; POST, PATCH and single-pass bodies are not")
    func hedgeable() {
        let policy = HedgingPolicy()
        for method in [HTTPMethod.get, .head, .options, .put, .delete] {
            #expect(policy.isHedgeable(HedgingFixtures.request(method)), "\(method)")
        }
        #expect(!policy.isHedgeable(HedgingFixtures.request(.post)))
        #expect(!policy.isHedgeable(HedgingFixtures.request(.patch)))
        #expect(!policy.isHedgeable(HedgingFixtures.request(.post, headers: ["Idempotency-Key": ""])))
        #expect(policy.isHedgeable(HedgingFixtures.request(.post, headers: ["Idempotency-Key": "k"], body: HTTPBody("{}"))))
        let singlePass = HTTPBody(AsyncStream<ArraySlice<UInt8>> { $0.finish() }, length: 0)
        #expect(!policy.isHedgeable(HedgingFixtures.request(.put, body: singlePass)))
        #expect(!HedgingPolicy(maxHedgedAttempts: 0).isHedgeable(HedgingFixtures.request()))
    }

    @Test("defaults: one hedge after 2 s (Polly), a 0.1 ratio with 10 tokens (gRFC A6), at most 3 hedges")
    func defaults() {
        let policy = HedgingPolicy()
        #expect(policy.maxHedgedAttempts == 1)
        guard case .fixed(let delay) = policy.delay else {
            Issue.record("expected a fixed delay")
            return
        }
        #expect(delay == .seconds(2))
        #expect(policy.budget == HedgingBudget(ratio: 0.1, maxTokens: 10))
        #expect(HedgingPolicy(maxHedgedAttempts: 9).maxHedgedAttempts == 3)
        #expect(HedgingPolicy(maxHedgedAttempts: -1).maxHedgedAttempts == 0)
    }

    @Test("only hedges whose delay ends before the deadline fit")
    func hedgesThatFit() {
        let policy = HedgingPolicy(maxHedgedAttempts: 3)
        #expect(policy.hedgesThatFit(delay: .milliseconds(100), timeLeft: nil) == 3)
        #expect(policy.hedgesThatFit(delay: .milliseconds(100), timeLeft: .milliseconds(250)) == 2)
        #expect(policy.hedgesThatFit(delay: .milliseconds(100), timeLeft: .milliseconds(100)) == 0)
        #expect(policy.hedgesThatFit(delay: .seconds(2), timeLeft: .seconds(1)) == 0)
        #expect(policy.hedgesThatFit(delay: .zero, timeLeft: .zero) == 0)
    }

    @Test("the bucket starts full, deposits ratio per request up to maxTokens, and each hedge withdraws one token")
    func tokenBucket() {
        var bucket = HedgingTokenBucket(budget: HedgingBudget(ratio: 0.1, maxTokens: 2))
        #expect(bucket.tokens == 2)
        bucket.recordRequest()
        #expect(bucket.tokens == 2, "capped at maxTokens")
        #expect([bucket.withdrawHedge(), bucket.withdrawHedge(), bucket.withdrawHedge()] == [true, true, false])
        for _ in 0..<9 { bucket.recordRequest() }
        let withNineDeposits = bucket.withdrawHedge()
        #expect(!withNineDeposits, "0.9 tokens is not enough")
        bucket.recordRequest()
        let withTenDeposits = bucket.withdrawHedge()
        #expect(withTenDeposits, "ten deposits of 0.1 make exactly one token")
        #expect(bucket.tokens == 0)
    }

    @Test("with ratio 0 the bucket never refills")
    func noRefill() {
        var bucket = HedgingTokenBucket(budget: HedgingBudget(ratio: 0, maxTokens: 1))
        let first = bucket.withdrawHedge()
        for _ in 0..<1_000 { bucket.recordRequest() }
        let second = bucket.withdrawHedge()
        #expect(first && !second)
        #expect(HedgingBudget(ratio: 7, maxTokens: -3) == HedgingBudget(ratio: 1, maxTokens: 0))
        #expect(HedgingBudget(ratio: .nan).ratio == 0)
    }

    @Test("the race ends on a failure only when no attempt is left, with the primary's error")
    func race() {
        struct Primary: Error {}
        struct Hedge: Error {}
        var early = HedgeRace()
        let atOnce = early.failed(attempt: 0, with: Primary())
        #expect(atOnce is Primary, "no hedge in flight: at once")

        var race = HedgeRace()
        race.sent(hedge: 1)
        let afterHedge = race.failed(attempt: 1, with: Hedge())
        let afterPrimary = race.failed(attempt: 0, with: Primary())
        #expect(afterHedge == nil)
        #expect(afterPrimary is Primary)

        var other = HedgeRace()
        other.sent(hedge: 1)
        let primaryFirst = other.failed(attempt: 0, with: Primary())
        #expect(primaryFirst == nil)
        #expect(other.primaryFailed)
        let hedgeLast = other.failed(attempt: 1, with: Hedge())
        #expect(hedgeLast is Primary, "the primary's error, although the hedge failed last")
    }
}
