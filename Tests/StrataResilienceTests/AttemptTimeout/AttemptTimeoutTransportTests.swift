import Foundation
import Strata
import StrataResilience
import StrataTesting
import Testing

@Suite("AttemptTimeoutTransport: each attempt its own time")
struct AttemptTimeoutTransportTests {
    let api = URL(string: "https://api.example.com/todos")!

    @Test("an attempt that answers in time returns its response and leaves no timer behind")
    func inTime() async throws {
        let clock = TestClock(sleepsAdvanceTime: false)
        let timeout = AttemptTimeoutTransport(inner: CannedResponseTransport(string: "ok"), timeout: .seconds(2), clock: clock)
        #expect(try await timeout.send(HTTPRequest(url: api)).statusCode == 200)
        #expect(clock.sleepers == 0)
    }

    @Test("an attempt past its timeout is cancelled below and fails as timedOut, naming the setting")
    func pastTimeout() async throws {
        let clock = TestClock(sleepsAdvanceTime: false)
        let cancelledBelow = LockedValue(false)
        let inner = ClosureTransport { _ in
            do {
                try await suspendUntilCancelled()
            } catch {
                cancelledBelow.withLock { $0 = true }
                throw error
            }
            return HTTPResponse(statusCode: 200)
        }
        let timeout = AttemptTimeoutTransport(inner: inner, timeout: .seconds(2), clock: clock)
        let call = Task { try await timeout.send(HTTPRequest(url: api)) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        do {
            _ = try await call.value
            Issue.record("the attempt outlived its timeout")
        } catch let error as TransportError {
            #expect(error.kind == .timedOut)
            #expect(error.isTransient)
            #expect(error.message == "the attempt took longer than its per-attempt timeout of 2 s (AttemptTimeoutTransport)")
        }
        #expect(cancelledBelow.withLock { $0 })
    }

    @Test("inside RetryTransport, a hung first attempt is cut and the retry answers")
    func retryGetsItsOwnTime() async throws {
        let clock = TestClock(sleepsAdvanceTime: false)
        let attempts = LockedValue(0)
        let inner = ClosureTransport { _ in
            if attempts.withLock({
                $0 += 1; return $0
            }) == 1 {
                try await suspendUntilCancelled()
            }
            return HTTPResponse(statusCode: 200)
        }
        let stack = TransportStack(
            .retry(policy: RetryPolicy(maxRetries: 2, budget: nil), clock: TestClock()),
            .attemptTimeout(.seconds(2), clock: clock),
            terminal: inner)
        let call = Task { try await stack.send(HTTPRequest(url: api)) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        #expect(try await call.value.statusCode == 200)
        #expect(attempts.withLock { $0 } == 2)
    }

    @Test("cancelling the caller cancels the attempt with CancellationError, not timedOut")
    func callerCancellation() async throws {
        let clock = TestClock(sleepsAdvanceTime: false)
        let gate = Gate()
        let inner = ClosureTransport { _ in
            await gate.wait()
            try Task.checkCancellation()
            return HTTPResponse(statusCode: 200)
        }
        let call = Task { try await AttemptTimeoutTransport(inner: inner, timeout: .seconds(2), clock: clock).send(HTTPRequest(url: api)) }
        await gate.waitForArrivals(1)
        call.cancel()
        gate.open()
        await #expect(throws: CancellationError.self) { try await call.value }
    }

    @Test("a stream whose head is late is cancelled and fails as timedOut; consume never runs")
    func streamHeadLate() async throws {
        let clock = TestClock(sleepsAdvanceTime: false)
        let inner = ClosureTransport { _ in
            try await suspendUntilCancelled()
            return HTTPResponse(statusCode: 200)
        }
        let consumed = LockedValue(false)
        let call = Task {
            try await AttemptTimeoutTransport(inner: inner, timeout: .seconds(1), clock: clock).stream(HTTPRequest(url: api)) { _, _ in
                consumed.withLock { $0 = true }
            }
        }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await #expect(throws: TransportError.self) { try await call.value }
        #expect(!consumed.withLock { $0 })
    }

    @Test("a stream's body is not bound by the attempt timeout once the head arrived")
    func streamBodyUnbounded() async throws {
        let clock = TestClock(sleepsAdvanceTime: false)
        let timeout = AttemptTimeoutTransport(inner: CannedResponseTransport(string: "a body"), timeout: .seconds(1), clock: clock)
        let text = try await timeout.stream(HTTPRequest(url: api)) { head, body in
            // The head is in: time passing now does not fail the stream.
            clock.advance(by: .seconds(10))
            #expect(head.statusCode == 200)
            return String(decoding: try await body.collect(upTo: 100), as: UTF8.self)
        }
        #expect(text == "a body")
        #expect(clock.sleepers == 0)
    }

    @Test("an error before the head is thrown as is")
    func streamError() async throws {
        let timeout = AttemptTimeoutTransport(
            inner: ClosureTransport.failing(TransportError(.cannotConnect)), timeout: .seconds(1),
            clock: TestClock(sleepsAdvanceTime: false))
        do {
            try await timeout.stream(HTTPRequest(url: api)) { _, _ in }
            Issue.record("no error")
        } catch let error as TransportError {
            #expect(error.kind == .cannotConnect)
        }
    }
}
