#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataResilience
import StrataTesting
import Testing

@Suite("CircuitBreakerTransport against doubles on a test clock")
struct CircuitBreakerTransportTests {
    let api = URL(string: "https://api.example.com/todos")!
    let other = URL(string: "https://other.example.com/todos")!
    /// Opens after 2 failures of the last 4 calls, for 5 s, with one probe.
    let policy = CircuitBreakerPolicy(minimumThroughput: 2, window: .count(4), breakDuration: .seconds(5))

    @Test("once open, calls fail at once with CircuitOpenError and never reach the transport")
    func failsFast() async throws {
        let inner = ClosureTransport.succeeding(.status(503))
        let breaker = CircuitBreakerTransport(inner: inner, policy: policy, clock: TestClock())
        for _ in 0..<2 { _ = try await breaker.send(HTTPRequest(url: api)) }
        await #expect(throws: CircuitOpenError.self) { try await breaker.send(HTTPRequest(url: api)) }
        #expect(await inner.recordedRequests.count == 2)
        #expect(breaker.state(for: HTTPRequest(url: api)) == .open(reopensIn: .seconds(5)))
    }

    @Test("the error says which circuit is open and until when, without the URL's secrets")
    func errorDescription() async throws {
        let breaker = CircuitBreakerTransport(inner: ClosureTransport.succeeding(.status(500)), policy: policy, clock: TestClock())
        for _ in 0..<2 { _ = try await breaker.send(HTTPRequest(url: api)) }
        let secret = URL(string: "https://user:hunter2@api.example.com/todos?access_token=abc")!
        do {
            _ = try await breaker.send(HTTPRequest(url: secret))
            Issue.record("the open circuit let a call through")
        } catch let error as CircuitOpenError {
            #expect(error.group == "https://api.example.com:443")
            #expect(error.retryAt != nil)
            #expect(error.description.contains("circuit for https://api.example.com:443 is open"))
            #expect(error.description.contains("probes are let through in 5 s"))
            #expect(!error.description.contains("hunter2"))
            #expect(!error.description.contains("abc"))
        }
    }

    @Test("4xx responses never open the circuit")
    func clientErrorsDoNotCount() async throws {
        let inner = ClosureTransport.succeeding(.status(404))
        let breaker = CircuitBreakerTransport(inner: inner, policy: policy, clock: TestClock())
        for _ in 0..<20 { _ = try await breaker.send(HTTPRequest(url: api)) }
        #expect(await inner.recordedRequests.count == 20)
        #expect(breaker.state(for: HTTPRequest(url: api)) == .closed)
    }

    @Test("transient transport errors count as failures; a TLS failure does not")
    func transportErrors() async throws {
        let tls = CircuitBreakerTransport(inner: ClosureTransport.failing(TransportError(.tls)), policy: policy, clock: TestClock())
        for _ in 0..<5 { await #expect(throws: TransportError.self) { try await tls.send(HTTPRequest(url: self.api)) } }
        #expect(tls.state(for: HTTPRequest(url: api)) == .closed)
        let lost = CircuitBreakerTransport(
            inner: ClosureTransport.failing(TransportError(.connectionLost)), policy: policy, clock: TestClock())
        for _ in 0..<2 { await #expect(throws: TransportError.self) { try await lost.send(HTTPRequest(url: self.api)) } }
        await #expect(throws: CircuitOpenError.self) { try await lost.send(HTTPRequest(url: self.api)) }
    }

    @Test("a cancelled call counts as nothing")
    func cancellationIgnored() async throws {
        let breaker = CircuitBreakerTransport(inner: ClosureTransport.failing(CancellationError()), policy: policy, clock: TestClock())
        for _ in 0..<5 { await #expect(throws: CancellationError.self) { try await breaker.send(HTTPRequest(url: self.api)) } }
        #expect(breaker.state(for: HTTPRequest(url: api)) == .closed)
    }

    @Test("each origin has its own circuit")
    func perOrigin() async throws {
        let inner = ClosureTransport { request in
            HTTPResponse(statusCode: request.url.host == "api.example.com" ? 503 : 200)
        }
        let breaker = CircuitBreakerTransport(inner: inner, policy: policy, clock: TestClock())
        for _ in 0..<2 { _ = try await breaker.send(HTTPRequest(url: api)) }
        await #expect(throws: CircuitOpenError.self) { try await breaker.send(HTTPRequest(url: self.api)) }
        #expect(try await breaker.send(HTTPRequest(url: other)).statusCode == 200)
    }

    @Test("a custom partition keys circuits by endpoint")
    func perEndpoint() async throws {
        let inner = ClosureTransport { request in HTTPResponse(statusCode: request.url.path == "/search" ? 503 : 200) }
        let breaker = CircuitBreakerTransport(inner: inner, policy: policy, partition: .endpoint, clock: TestClock())
        let search = URL(string: "https://api.example.com/search?q=a")!
        for _ in 0..<2 { _ = try await breaker.send(HTTPRequest(url: search)) }
        await #expect(throws: CircuitOpenError.self) {
            try await breaker.send(HTTPRequest(url: URL(string: "https://api.example.com/search?q=b")!))
        }
        #expect(try await breaker.send(HTTPRequest(url: api)).statusCode == 200)
    }

    @Test("after the break one probe goes through; its success closes the circuit")
    func probeCloses() async throws {
        let healthy = LockedValue(false)
        let inner = ClosureTransport { _ in HTTPResponse(statusCode: healthy.withLock { $0 } ? 200 : 503) }
        let clock = TestClock()
        let breaker = CircuitBreakerTransport(inner: inner, policy: policy, clock: clock)
        for _ in 0..<2 { _ = try await breaker.send(HTTPRequest(url: api)) }
        clock.advance(by: .seconds(5))
        healthy.withLock { $0 = true }
        #expect(try await breaker.send(HTTPRequest(url: api)).statusCode == 200)
        #expect(breaker.state(for: HTTPRequest(url: api)) == .closed)
        #expect(try await breaker.send(HTTPRequest(url: api)).statusCode == 200)
        #expect(await inner.recordedRequests.count == 4)
    }

    @Test("while the probe is out, other calls fail at once as half-open")
    func halfOpenRefusesOthers() async throws {
        let gate = Gate()
        let failing = LockedValue(true)
        let inner = ClosureTransport { _ in
            if failing.withLock({ $0 }) { return HTTPResponse(statusCode: 503) }
            await gate.wait()
            return HTTPResponse(statusCode: 200)
        }
        let clock = TestClock()
        let breaker = CircuitBreakerTransport(inner: inner, policy: policy, clock: clock)
        for _ in 0..<2 { _ = try await breaker.send(HTTPRequest(url: api)) }
        clock.advance(by: .seconds(5))
        failing.withLock { $0 = false }
        let probe = Task { try await breaker.send(HTTPRequest(url: api)) }
        await gate.waitForArrivals(1)
        do {
            _ = try await breaker.send(HTTPRequest(url: api))
            Issue.record("a second call went through while the probe was out")
        } catch let error as CircuitOpenError {
            #expect(error.state == .halfOpen)
        }
        gate.open()
        #expect(try await probe.value.statusCode == 200)
        #expect(breaker.state(for: HTTPRequest(url: api)) == .closed)
    }

    @Test("RetryTransport does not retry into an open circuit")
    func retryStopsAtOpenCircuit() async throws {
        let inner = ClosureTransport.succeeding(.status(503))
        let stack = TransportStack(
            .retry(policy: RetryPolicy(maxRetries: 5, budget: nil), clock: TestClock()),
            .circuitBreaker(policy: policy, clock: TestClock()),
            terminal: inner)
        await #expect(throws: CircuitOpenError.self) { try await stack.send(HTTPRequest(url: self.api)) }
        // The first send and one retry opened the circuit; the second retry met it and stopped.
        #expect(await inner.recordedRequests.count == 2)
    }

    @Test("a stream counts on its head: 503 heads open the circuit, and consume runs for each")
    func streamCountsOnHead() async throws {
        let breaker = CircuitBreakerTransport(
            inner: CannedResponseTransport(string: "down", statusCode: 503), policy: policy, clock: TestClock())
        for _ in 0..<2 {
            let text = try await breaker.stream(HTTPRequest(url: api)) { _, body in
                String(decoding: try await body.collect(upTo: 100), as: UTF8.self)
            }
            #expect(text == "down")
        }
        await #expect(throws: CircuitOpenError.self) {
            try await breaker.stream(HTTPRequest(url: self.api)) { _, _ in () }
        }
    }

    @Test("opening, refusing, half-opening and closing are reported as events")
    func events() async throws {
        let healthy = LockedValue(false)
        let clock = TestClock()
        let events = RecordingObserver()
        let breaker = events.observing(
            CircuitBreakerTransport(
                inner: ClosureTransport { _ in HTTPResponse(statusCode: healthy.withLock { $0 } ? 200 : 503) }, policy: policy,
                clock: clock))
        for _ in 0..<2 { _ = try await breaker.send(HTTPRequest(url: api)) }
        _ = try? await breaker.send(HTTPRequest(url: api))
        clock.advance(by: .seconds(5))
        healthy.withLock { $0 = true }
        _ = try await breaker.send(HTTPRequest(url: api))
        #expect(
            events.names.filter { $0.hasPrefix("circuit.") } == [
                "circuit.opened", "circuit.rejected", "circuit.half_opened", "circuit.closed",
            ])
        let opened = events.events(CircuitBreakerEvent.self).first
        #expect(opened?.logLevel == .warning)
        #expect(opened?.description == "circuit for https://api.example.com:443 opened: 2 of 2 calls failed; calls fail at once for 5 s")
    }
}
