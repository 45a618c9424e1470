import Foundation
import Strata
import StrataResilience
import StrataTesting
import Testing

@Suite("HedgingTransport.stream decides on the head")
struct HedgingStreamTests {
    /// Reads the whole body as text, checking that the winner's exchange is still open meanwhile.
    private func read(_ body: HTTPBody, winner: Int, of inner: GatedTransport) async throws -> String {
        #expect(!inner.released.contains(winner), "the winner is held open while consume reads")
        var bytes: [UInt8] = []
        for try await chunk in body { bytes += chunk }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("the hedge's head wins: consume reads its body, the primary is cancelled unread, and the winner is released after consume")
    func hedgeWins() async throws {
        let inner = GatedTransport()
        let clock = TestClock(sleepsAdvanceTime: false)
        let events = EventFeed()
        let transport = events.observing(HedgingTransport(inner: inner, policy: HedgingFixtures.policy(), clock: clock))
        let call = Task {
            try await transport.stream(HedgingFixtures.request()) { head, body in
                (head.statusCode, try await read(body, winner: 1, of: inner))
            }
        }
        await inner.waitForSends(1)
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(100))
        await inner.waitForSends(2)
        inner.answer(1, text: "hedge")
        let (status, text) = try await call.value
        #expect(status == 200)
        #expect(text == "hedge")
        #expect(inner.cancelled == [0])
        #expect(inner.bodyReads == [1])
        #expect(inner.consumed == [1], "the primary never got a head to hand over")
        #expect(inner.released == [1])
        #expect(clock.sleepers == 0)
        #expect(events.hedgingNames == ["hedging.sent", "hedging.won"])
    }

    @Test("the primary's head wins after a hedge was sent: the hedge is cancelled and its body never read")
    func primaryWins() async throws {
        let inner = GatedTransport()
        let clock = TestClock(sleepsAdvanceTime: false)
        let transport = HedgingTransport(inner: inner, policy: HedgingFixtures.policy(), clock: clock)
        let call = Task {
            try await transport.stream(HedgingFixtures.request()) { _, body in try await read(body, winner: 0, of: inner) }
        }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(100))
        await inner.waitForSends(2)
        inner.answer(0, text: "primary")
        #expect(try await call.value == "primary")
        #expect(inner.cancelled == [1])
        #expect(inner.bodyReads == [0])
        #expect(inner.released == [0])
    }

    @Test("the winner is released when consume throws, and the error is thrown")
    func releasedOnThrow() async throws {
        struct Refused: Error {}
        let inner = GatedTransport()
        let clock = TestClock(sleepsAdvanceTime: false)
        let transport = HedgingTransport(inner: inner, policy: HedgingFixtures.policy(), clock: clock)
        let call = Task { try await transport.stream(HedgingFixtures.request()) { _, _ -> Int in throw Refused() } }
        await inner.waitForSends(1)
        inner.answer(0, text: "primary")
        await #expect(throws: Refused.self) { try await call.value }
        #expect(inner.released == [0])
        #expect(inner.bodyReads.isEmpty)
    }

    @Test("cancelling the caller cancels every streamed attempt")
    func callerCancellation() async throws {
        let inner = GatedTransport()
        let clock = TestClock(sleepsAdvanceTime: false)
        let transport = HedgingTransport(inner: inner, policy: HedgingFixtures.policy(), clock: clock)
        let call = Task { try await transport.stream(HedgingFixtures.request()) { _, _ in 0 } }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(100))
        await inner.waitForSends(2)
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(inner.cancelled == [0, 1])
        #expect(inner.consumed.isEmpty)
    }

    @Test("a single-pass body streams straight through, with no delay started")
    func notHedgeable() async throws {
        let inner = GatedTransport()
        let clock = TestClock(sleepsAdvanceTime: false)
        let transport = HedgingTransport(inner: inner, policy: HedgingFixtures.policy(), clock: clock)
        let request = HedgingFixtures.request(.put, body: HTTPBody(AsyncStream<ArraySlice<UInt8>> { $0.finish() }, length: 0))
        let call = Task { try await transport.stream(request) { _, body in try await read(body, winner: 0, of: inner) } }
        await inner.waitForSends(1)
        clock.advance(by: .seconds(60))
        inner.answer(0, text: "once")
        #expect(try await call.value == "once")
        #expect(inner.sends == 1)
        #expect(clock.sleeps.isEmpty)
    }
}
