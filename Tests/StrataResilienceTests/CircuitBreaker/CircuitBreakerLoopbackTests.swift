#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataResilience
import StrataTesting
import TestServer
import Testing

@Suite("CircuitBreakerTransport against a loopback server that is down")
struct CircuitBreakerLoopbackTests {
    @Test("once the circuit opens, requests fail fast and the server accepts no connection until the break passes")
    func noConnectionsWhileOpen() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let healthy = LockedValue(false)
        // A server that is down: every answer is a 503 on a connection it then closes, so each
        // request that reaches it is one accepted connection.
        server.route("/todos") { _ in
            healthy.withLock { $0 }
                ? LoopbackHTTPServer.Response(text: "[]")
                : LoopbackHTTPServer.Response(status: 503, text: "down", closeConnection: true)
        }
        let clock = TestClock()
        let breaker = CircuitBreakerTransport(
            inner: URLSessionTransport(),
            policy: CircuitBreakerPolicy(minimumThroughput: 5, window: .count(10), breakDuration: .seconds(30)), clock: clock)
        let request = HTTPRequest(url: server.url("/todos"))

        for _ in 0..<5 { #expect(try await breaker.send(request).statusCode == 503) }
        let connectionsWhenOpened = server.connectionCount
        let requestsWhenOpened = server.requestCount
        #expect(requestsWhenOpened == 5)

        for _ in 0..<100 {
            await #expect(throws: CircuitOpenError.self) { try await breaker.send(request) }
        }
        #expect(server.connectionCount == connectionsWhenOpened)
        #expect(server.requestCount == requestsWhenOpened)

        // The dependency recovered and the break passed: the probe reaches it and closes the circuit.
        healthy.withLock { $0 = true }
        clock.advance(by: .seconds(30))
        #expect(try await breaker.send(request).statusCode == 200)
        #expect(try await breaker.send(request).statusCode == 200)
        #expect(server.requestCount == requestsWhenOpened + 2)
        #expect(breaker.state(for: request) == .closed)
    }
}
