import Foundation
import Strata
import StrataResilience
import StrataTesting
import Testing

@Suite("ConcurrencyLimitTransport: places, a queue with a timeout, cancellation")
struct ConcurrencyLimitTransportTests {
    let api = URL(string: "https://api.example.com/todos")!

    /// A transport whose calls wait at `gate` and answer 200.
    private func gated(_ gate: Gate) -> ClosureTransport {
        ClosureTransport { _ in
            await gate.wait()
            return HTTPResponse(statusCode: 200)
        }
    }

    @Test("at most maxInFlight calls reach the transport; the next waits and goes when one ends")
    func capsInFlight() async throws {
        let gate = Gate()
        let inner = gated(gate)
        let limit = ConcurrencyLimitTransport(
            inner: inner, policy: ConcurrencyLimitPolicy(maxInFlight: 2, maxQueued: 5), clock: TestClock(sleepsAdvanceTime: false))
        let calls = (0..<3).map { _ in Task { try await limit.send(HTTPRequest(url: api)) } }
        await gate.waitForArrivals(2)
        while limit.load(for: HTTPRequest(url: api)).queued < 1 { await Task.yield() }
        #expect(await inner.recordedRequests.count == 2)
        #expect(limit.load(for: HTTPRequest(url: api)) == (2, 1))
        gate.open()
        for call in calls { #expect(try await call.value.statusCode == 200) }
        #expect(await inner.recordedRequests.count == 3)
        #expect(limit.load(for: HTTPRequest(url: api)) == (0, 0))
    }

    @Test("a full queue fails the next call at once, without sending it")
    func queueFull() async throws {
        let gate = Gate()
        let inner = gated(gate)
        let limit = ConcurrencyLimitTransport(
            inner: inner, policy: ConcurrencyLimitPolicy(maxInFlight: 1, maxQueued: 1), clock: TestClock(sleepsAdvanceTime: false))
        let first = Task { try await limit.send(HTTPRequest(url: api)) }
        await gate.waitForArrivals(1)
        let second = Task { try await limit.send(HTTPRequest(url: api)) }
        while limit.load(for: HTTPRequest(url: api)).queued < 1 { await Task.yield() }
        do {
            _ = try await limit.send(HTTPRequest(url: api))
            Issue.record("a call beyond the queue was sent")
        } catch let error as ConcurrencyLimitError {
            #expect(error.reason == .queueFull(maxInFlight: 1, maxQueued: 1))
            #expect(error.description.contains("1 calls to https://api.example.com:443 are in flight and 1 wait"))
        }
        gate.open()
        _ = try await (first.value, second.value)
        #expect(await inner.recordedRequests.count == 2)
    }

    @Test("a waiter fails with queueTimedOut when no place comes free within the queue timeout")
    func queueTimeout() async throws {
        let gate = Gate()
        let clock = TestClock(sleepsAdvanceTime: false)
        let limit = ConcurrencyLimitTransport(
            inner: gated(gate), policy: ConcurrencyLimitPolicy(maxInFlight: 1, maxQueued: 4, queueTimeout: .seconds(2)), clock: clock)
        let first = Task { try await limit.send(HTTPRequest(url: api)) }
        await gate.waitForArrivals(1)
        let waiter = Task { try await limit.send(HTTPRequest(url: api)) }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(1_999))
        #expect(limit.load(for: HTTPRequest(url: api)).queued == 1)
        clock.advance(by: .milliseconds(1))
        await #expect(throws: ConcurrencyLimitError.self) { try await waiter.value }
        #expect(limit.load(for: HTTPRequest(url: api)).queued == 0)
        gate.open()
        _ = try await first.value
    }

    @Test("the request's deadline bounds the wait when it ends before the queue timeout")
    func deadlineBoundsWait() async throws {
        let gate = Gate()
        let limit = ConcurrencyLimitTransport(
            inner: gated(gate), policy: ConcurrencyLimitPolicy(maxInFlight: 1, queueTimeout: .seconds(3_600)), clock: ContinuousClock())
        let first = Task { try await limit.send(HTTPRequest(url: api)) }
        await gate.waitForArrivals(1)
        do {
            _ = try await RequestDeadline.withTimeout(.milliseconds(1)) { try await limit.send(HTTPRequest(url: api)) }
            Issue.record("the waiter outlived its deadline")
        } catch let error as TransportError {
            #expect(error.kind == .timedOut)
        }
        gate.open()
        _ = try await first.value
    }

    @Test("cancelling a waiter ends it with CancellationError and frees its place in the queue")
    func cancelledWaiter() async throws {
        let gate = Gate()
        let limit = ConcurrencyLimitTransport(
            inner: gated(gate), policy: ConcurrencyLimitPolicy(maxInFlight: 1, maxQueued: 1), clock: TestClock(sleepsAdvanceTime: false))
        let first = Task { try await limit.send(HTTPRequest(url: api)) }
        await gate.waitForArrivals(1)
        let waiter = Task { try await limit.send(HTTPRequest(url: api)) }
        while limit.load(for: HTTPRequest(url: api)).queued < 1 { await Task.yield() }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(limit.load(for: HTTPRequest(url: api)).queued == 0)
        // Its place in the queue is free: another caller can wait there.
        let next = Task { try await limit.send(HTTPRequest(url: api)) }
        while limit.load(for: HTTPRequest(url: api)).queued < 1 { await Task.yield() }
        gate.open()
        _ = try await (first.value, next.value)
    }

    @Test("groups are independent: a full origin does not hold another")
    func perOrigin() async throws {
        let gate = Gate()
        let inner = ClosureTransport { request in
            if request.url.host == "api.example.com" { await gate.wait() }
            return HTTPResponse(statusCode: 200)
        }
        let limit = ConcurrencyLimitTransport(
            inner: inner, policy: ConcurrencyLimitPolicy(maxInFlight: 1, maxQueued: 0), clock: TestClock(sleepsAdvanceTime: false))
        let blocked = Task { try await limit.send(HTTPRequest(url: api)) }
        await gate.waitForArrivals(1)
        #expect(try await limit.send(HTTPRequest(url: URL(string: "https://other.example.com/")!)).statusCode == 200)
        await #expect(throws: ConcurrencyLimitError.self) { try await limit.send(HTTPRequest(url: self.api)) }
        gate.open()
        _ = try await blocked.value
    }

    @Test("a stream holds its place until consume returns")
    func streamHoldsPlace() async throws {
        let limit = ConcurrencyLimitTransport(
            inner: CannedResponseTransport(string: "ok"), policy: ConcurrencyLimitPolicy(maxInFlight: 1, maxQueued: 0),
            clock: TestClock(sleepsAdvanceTime: false))
        try await limit.stream(HTTPRequest(url: api)) { _, _ in
            #expect(limit.load(for: HTTPRequest(url: api)).inFlight == 1)
            await #expect(throws: ConcurrencyLimitError.self) { try await limit.send(HTTPRequest(url: self.api)) }
        }
        #expect(limit.load(for: HTTPRequest(url: api)).inFlight == 0)
    }

    @Test("a failing call frees its place too")
    func failureReleases() async throws {
        let limit = ConcurrencyLimitTransport(
            inner: ClosureTransport.failing(TransportError(.connectionLost)), policy: ConcurrencyLimitPolicy(maxInFlight: 1, maxQueued: 0),
            clock: TestClock())
        for _ in 0..<3 { await #expect(throws: TransportError.self) { try await limit.send(HTTPRequest(url: self.api)) } }
        #expect(limit.load(for: HTTPRequest(url: api)) == (0, 0))
    }

    @Test("waiting and refusing are reported as events; a call with a free place reports nothing")
    func events() async throws {
        let gate = Gate()
        let events = RecordingObserver()
        let limit = ConcurrencyLimitTransport(
            inner: gated(gate), policy: ConcurrencyLimitPolicy(maxInFlight: 1, maxQueued: 1), clock: TestClock(sleepsAdvanceTime: false))
        let observed = events.observing(limit)
        let first = Task { try await observed.send(HTTPRequest(url: api)) }
        await gate.waitForArrivals(1)
        #expect(!events.names.contains { $0.hasPrefix("concurrency.") })
        let second = Task { try await observed.send(HTTPRequest(url: api)) }
        while limit.load(for: HTTPRequest(url: api)).queued < 1 { await Task.yield() }
        _ = try? await observed.send(HTTPRequest(url: api))
        gate.open()
        _ = try await (first.value, second.value)
        #expect(
            events.names.filter { $0.hasPrefix("concurrency.") }.sorted() == [
                "concurrency.admitted", "concurrency.queued", "concurrency.rejected",
            ])
    }
}
