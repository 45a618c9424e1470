import Foundation
import Strata
import StrataResilience
import StrataTesting
import Testing

@Suite("HedgingTransport.send against a gated transport on a test clock")
struct HedgingTransportTests {
    private func hedging(_ inner: GatedTransport, _ policy: HedgingPolicy = HedgingFixtures.policy(), clock: TestClock) -> HedgingTransport
    {
        HedgingTransport(inner: inner, policy: policy, clock: clock)
    }

    @Test("a primary that answers before the delay sends no hedge, leaves no sleep running and leaves the budget untouched")
    func fastPrimary() async throws {
        let inner = GatedTransport()
        let clock = TestClock(sleepsAdvanceTime: false)
        let events = EventFeed()
        let transport = hedging(inner, clock: clock)
        let call = Task { try await events.observing(transport).send(HedgingFixtures.request()) }
        await inner.waitForSends(1)
        inner.answer(0, text: "primary")
        #expect(try await call.value.text == "primary")
        #expect(inner.sends == 1)
        #expect(clock.sleepers == 0)
        #expect(transport.availableHedgeTokens == 10)
        #expect(events.hedgingNames.isEmpty)
    }

    @Test("a slow primary gets a hedge after the delay; the hedge's response wins and the primary is cancelled")
    func hedgeWins() async throws {
        let inner = GatedTransport()
        let clock = TestClock(sleepsAdvanceTime: false)
        let events = EventFeed()
        let transport = hedging(inner, clock: clock)
        let call = Task { try await events.observing(transport).send(HedgingFixtures.request()) }
        await inner.waitForSends(1)
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(100))
        await inner.waitForSends(2)
        inner.answer(1, text: "hedge")
        #expect(try await call.value.text == "hedge")
        #expect(inner.cancelled == [0])
        #expect(clock.sleeps == [.milliseconds(100)])
        #expect(clock.sleepers == 0)
        #expect(transport.availableHedgeTokens == 9)
        #expect(events.hedgingNames == ["hedging.sent", "hedging.won"])
        let attempts = events.recorder.all.filter { $0.event is HedgingEvent }.map(\.attempt)
        #expect(attempts == [2, 1], "the hedge is its own attempt; the outcome is reported by the request")
        #expect(
            events.recorder.events(HedgingEvent.self).first
                == .sent(hedge: 1, delay: .milliseconds(100), method: .get, url: HedgingFixtures.url))
    }

    @Test("a primary that answers after the hedge was sent wins, and the hedge is cancelled")
    func primaryWinsAfterHedge() async throws {
        let inner = GatedTransport()
        let clock = TestClock(sleepsAdvanceTime: false)
        let events = EventFeed()
        let call = Task { try await events.observing(hedging(inner, clock: clock)).send(HedgingFixtures.request()) }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(100))
        await inner.waitForSends(2)
        inner.answer(0, text: "primary")
        #expect(try await call.value.text == "primary")
        #expect(inner.cancelled == [1])
        #expect(events.hedgingNames == ["hedging.sent", "hedging.lost"])
    }

    @Test("any status wins: a hedge's 503 that comes first is returned, for a retry layer above to judge")
    func anyStatusWins() async throws {
        let inner = GatedTransport()
        let clock = TestClock(sleepsAdvanceTime: false)
        let call = Task { try await hedging(inner, clock: clock).send(HedgingFixtures.request()) }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(100))
        await inner.waitForSends(2)
        inner.answer(1, .response(status: 503, text: "busy"))
        #expect(try await call.value.statusCode == 503)
        #expect(inner.cancelled == [0])
    }

    @Test(
        "a POST without an Idempotency-Key and a single-pass body are never hedged, however slow",
        arguments: [
            HedgingFixtures.request(.post),
            HedgingFixtures.request(.put, body: HTTPBody(AsyncStream<ArraySlice<UInt8>> { $0.finish() }, length: 0)),
        ])
    func notHedgeable(request: HTTPRequest) async throws {
        let inner = GatedTransport()
        let clock = TestClock(sleepsAdvanceTime: false)
        let call = Task { try await hedging(inner, clock: clock).send(request) }
        await inner.waitForSends(1)
        clock.advance(by: .seconds(60))
        inner.answer(0, text: "once")
        #expect(try await call.value.text == "once")
        #expect(inner.sends == 1)
        #expect(clock.sleeps.isEmpty, "no delay is even started")
    }

    @Test("a POST with an Idempotency-Key is hedged")
    func postWithIdempotencyKey() async throws {
        let inner = GatedTransport()
        let clock = TestClock(sleepsAdvanceTime: false)
        let request = HedgingFixtures.request(.post, headers: ["Idempotency-Key": "order-42"], body: HTTPBody("{}"))
        let call = Task { try await hedging(inner, clock: clock).send(request) }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(100))
        await inner.waitForSends(2)
        inner.answer(1, text: "hedge")
        #expect(try await call.value.text == "hedge")
        #expect(inner.methods == [.post, .post])
    }

    @Test("with maxTokens 1 and ratio 0, only the first slow request is hedged, and an event says why the next is not")
    func budgetExhaustion() async throws {
        let inner = GatedTransport()
        let clock = TestClock(sleepsAdvanceTime: false)
        let events = EventFeed()
        let transport = events.observing(
            hedging(inner, HedgingFixtures.policy(budget: HedgingBudget(ratio: 0, maxTokens: 1)), clock: clock))

        let first = Task { try await transport.send(HedgingFixtures.request()) }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(100))
        await inner.waitForSends(2)
        inner.answer(1, text: "hedge")
        #expect(try await first.value.text == "hedge")

        let second = Task { try await transport.send(HedgingFixtures.request()) }
        await inner.waitForSends(3)
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(100))
        await events.waitFor("hedging.skipped")
        inner.answer(2, text: "primary")
        #expect(try await second.value.text == "primary")
        #expect(inner.sends == 3)
        #expect(events.hedgingNames == ["hedging.sent", "hedging.won", "hedging.skipped"])
        #expect(
            events.recorder.events(HedgingEvent.self).last
                == .skipped(hedge: 1, reason: .budgetExhausted, method: .get, url: HedgingFixtures.url))
    }

    @Test("a percentile delay uses the fallback until enough samples, then the chosen percentile of them")
    func percentileDelay() async throws {
        let inner = GatedTransport()
        let clock = TestClock(sleepsAdvanceTime: false)
        let policy = HedgingFixtures.policy(delay: .percentile(0.5, minimumSamples: 3, fallback: .seconds(1)))
        let transport = hedging(inner, policy, clock: clock)
        for (index, latency) in [300, 100, 200].enumerated() {
            let call = Task { try await transport.send(HedgingFixtures.request()) }
            await inner.waitForSends(index + 1)
            await clock.waitForSleepers(1)
            clock.advance(by: .milliseconds(latency))
            inner.answer(index, text: "ok")
            _ = try await call.value
        }
        let call = Task { try await transport.send(HedgingFixtures.request()) }
        await clock.waitForSleepers(1)
        #expect(clock.sleeps == [.seconds(1), .seconds(1), .seconds(1), .milliseconds(200)])
        inner.answer(3, text: "ok")
        _ = try await call.value
    }

    @Test("a hedge whose delay would end after the request's deadline is not scheduled, and an event says so")
    func deadline() async throws {
        let inner = GatedTransport()
        let clock = TestClock(sleepsAdvanceTime: false)
        let events = EventFeed()
        let transport = events.observing(hedging(inner, HedgingFixtures.policy(delay: .fixed(.seconds(2))), clock: clock))
        let call = Task { try await RequestDeadline.withTimeout(.seconds(1)) { try await transport.send(HedgingFixtures.request()) } }
        await inner.waitForSends(1)
        #expect(events.hedgingNames == ["hedging.skipped"])
        #expect(
            events.recorder.events(HedgingEvent.self)
                == [.skipped(hedge: 1, reason: .deadlineWouldPass, method: .get, url: HedgingFixtures.url)])
        inner.answer(0, text: "primary")
        #expect(try await call.value.text == "primary")
        #expect(clock.sleeps.isEmpty)
    }

    @Test("a hedge whose delay ends before the deadline is scheduled")
    func deadlineWithRoom() async throws {
        let inner = GatedTransport()
        let clock = TestClock(sleepsAdvanceTime: false)
        let transport = hedging(inner, HedgingFixtures.policy(delay: .fixed(.seconds(2))), clock: clock)
        let call = Task { try await RequestDeadline.withTimeout(.seconds(60)) { try await transport.send(HedgingFixtures.request()) } }
        await clock.waitForSleepers(1)
        #expect(clock.sleeps == [.seconds(2)])
        inner.answer(0, text: "primary")
        _ = try await call.value
    }

    @Test("cancelling the caller cancels every attempt and throws CancellationError")
    func callerCancellation() async throws {
        let inner = GatedTransport()
        let clock = TestClock(sleepsAdvanceTime: false)
        let call = Task {
            try await hedging(inner, HedgingFixtures.policy(maxHedgedAttempts: 2), clock: clock).send(HedgingFixtures.request())
        }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(100))
        await inner.waitForSends(2)
        await clock.waitForSleepers(1) // The second hedge's delay.
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(inner.cancelled == [0, 1])
        #expect(clock.sleepers == 0)
        #expect(inner.sends == 2)
    }

    @Test("a primary that fails before the delay fails the request at once, with no hedge")
    func primaryFailsEarly() async throws {
        let inner = GatedTransport()
        let clock = TestClock(sleepsAdvanceTime: false)
        let call = Task { try await hedging(inner, clock: clock).send(HedgingFixtures.request()) }
        await inner.waitForSends(1)
        inner.answer(0, .failure(TransportError(.connectionLost)))
        let error = await #expect(throws: TransportError.self) { try await call.value }
        #expect(error?.kind == .connectionLost)
        #expect(inner.sends == 1)
        #expect(clock.sleepers == 0)
    }

    @Test("a primary that fails while the hedge is in flight waits for the hedge, whose response is returned")
    func primaryFailsHedgeAnswers() async throws {
        let inner = GatedTransport()
        let clock = TestClock(sleepsAdvanceTime: false)
        let call = Task { try await hedging(inner, clock: clock).send(HedgingFixtures.request()) }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(100))
        await inner.waitForSends(2)
        inner.answer(0, .failure(TransportError(.connectionLost)))
        inner.answer(1, text: "hedge")
        #expect(try await call.value.text == "hedge")
    }

    @Test("when every attempt fails, the primary's error is thrown")
    func allFail() async throws {
        let inner = GatedTransport()
        let clock = TestClock(sleepsAdvanceTime: false)
        let call = Task { try await hedging(inner, clock: clock).send(HedgingFixtures.request()) }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(100))
        await inner.waitForSends(2)
        inner.answer(1, .failure(TransportError(.timedOut)))
        inner.answer(0, .failure(TransportError(.connectionLost)))
        let error = await #expect(throws: TransportError.self) { try await call.value }
        #expect(error?.kind == .connectionLost)
    }

    @Test("two hedges go out one delay apart, each as the next attempt")
    func twoHedges() async throws {
        let inner = GatedTransport()
        let clock = TestClock(sleepsAdvanceTime: false)
        let events = EventFeed()
        let transport = events.observing(hedging(inner, HedgingFixtures.policy(maxHedgedAttempts: 2), clock: clock))
        let call = Task { try await transport.send(HedgingFixtures.request()) }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(100))
        await inner.waitForSends(2)
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(100))
        await inner.waitForSends(3)
        inner.answer(2, text: "second hedge")
        #expect(try await call.value.text == "second hedge")
        #expect(inner.cancelled == [0, 1])
        let sent = events.recorder.all.filter { $0.event.name == "hedging.sent" }
        #expect(sent.map(\.attempt) == [2, 3])
        #expect(
            events.recorder.events(HedgingEvent.self).last
                == .won(hedge: 2, elapsed: .milliseconds(200), method: .get, url: HedgingFixtures.url))
    }
}
