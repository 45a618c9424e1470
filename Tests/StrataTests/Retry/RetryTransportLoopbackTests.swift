#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataTesting
import Testing
import TestServer

@Suite("RetryTransport over URLSessionTransport against a loopback server")
struct RetryTransportLoopbackTests {
    let server: LoopbackHTTPServer

    init() throws { server = try LoopbackHTTPServer() }

    private func retrying(maxRetries: Int = 3, events: RecordingObserver) -> any Transport {
        events.observing(
            RetryFixtures.retrying(
                URLSessionTransport(requestTimeout: .seconds(30)),
                policy: RetryPolicy(maxRetries: maxRetries, jitter: .none, budget: nil)))
    }

    @Test("a real 503 with Retry-After, then a 200: one retry, waiting as the server asked")
    func serviceUnavailableThenOK() async throws {
        let calls = LockedValue(0)
        server.route("/flaky") { _ in
            calls.withLock {
                $0 += 1; return $0
            } == 1
                ? .init(status: 503, headers: [("Retry-After", "2")], text: "busy")
                : .init(status: 200, text: "ok")
        }
        let events = RecordingObserver()
        let response = try await retrying(events: events).send(URLRequest(url: server.url("/flaky")))
        #expect(response.statusCode == 200)
        #expect(response.text == "ok")
        #expect(server.requestCount == 2)
        #expect(
            events.events(RetryEvent.self) == [
                .scheduled(
                    retry: 1, delay: .seconds(2), reason: .status(503),
                    delaySource: .retryAfter, method: .get, url: server.url("/flaky"))
            ])
    }

    @Test("a closed port is a cannotConnect failure: retried, then the last error is thrown")
    func closedPortRetried() async throws {
        let closed = try RefusingPort()
        let url = closed.url("/nothing-listens")
        let events = RecordingObserver()
        let error = await #expect(throws: TransportError.self) {
            try await retrying(maxRetries: 2, events: events).send(URLRequest(url: url))
        }
        #expect(error?.kind == .cannotConnect)
        #expect(
            events.events(RetryEvent.self) == [
                .scheduled(
                    retry: 1, delay: .milliseconds(500), reason: .transportError(.cannotConnect), delaySource: .backoff,
                    method: .get, url: url),
                .scheduled(
                    retry: 2, delay: .seconds(1), reason: .transportError(.cannotConnect), delaySource: .backoff,
                    method: .get, url: url),
            ])
    }

    @Test("a real 401 reaches the caller after exactly one request")
    func unauthorizedOnce() async throws {
        server.route("/private", response: .init(status: 401, headers: [("WWW-Authenticate", "Bearer")], text: "no"))
        let events = RecordingObserver()
        let response = try await retrying(events: events).send(URLRequest(url: server.url("/private")))
        #expect(response.statusCode == 401)
        #expect(server.requestCount == 1)
        #expect(events.events(RetryEvent.self).isEmpty)
    }
}
