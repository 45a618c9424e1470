#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing
import TestServer

/// A response whose only lifetime is `s-maxage` (no `max-age`, no `Expires`, no validator), from
/// a loopback origin through URLSessionTransport, on a test clock whose wall time starts at a
/// whole second (the `Date` added at receipt then adds no apparent age).
@Suite("A shared store keeps a response whose only lifetime is s-maxage")
struct SharedMaxAgeStorageTests {
    let server: LoopbackHTTPServer
    let clock = TestClock()

    init() throws {
        server = try LoopbackHTTPServer()
        server.route("/fleet", method: "GET", response: .init(headers: [("Cache-Control", "s-maxage=60")], text: "for the fleet"))
    }

    private func cache(_ store: any ETagStoreProtocol, events: RecordingObserver) -> any Transport {
        let origin = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        return events.observing(
            ETagTransport(
                inner: URLSessionTransport(requestTimeout: .seconds(30)), store: store, clock: clock,
                wallClockOrigin: origin))
    }

    @Test("RFC 9111 §3, §5.2.2.10: a shared store stores a response whose only lifetime is s-maxage, and serves it fresh for that long")
    func sharedStoreKeepsIt() async throws {
        defer { server.stop() }
        let events = RecordingObserver()
        let cache = cache(SharedMemoryStore(), events: events)
        let url = server.url("/fleet")
        #expect(try await cache.send(HTTPRequest(url: url)).source == .network)
        #expect(events.events(ETagEvent.self).contains(.stored(url, bodyBytes: 13)))
        clock.advance(by: .seconds(59))
        let fresh = try await cache.send(HTTPRequest(url: url))
        #expect(fresh.source == .fresh && fresh.text == "for the fleet" && fresh.headers["Age"] == "59")
        #expect(server.requestCount == 1)
        clock.advance(by: .seconds(1))
        #expect(try await cache.send(HTTPRequest(url: url)).source == .network, "stale, with no validator: downloaded again")
        #expect(server.requestCount == 2)
    }

    @Test("RFC 9111 §4.2.1: a private store ignores s-maxage, so the same response is not stored")
    func privateStoreDoesNot() async throws {
        defer { server.stop() }
        let events = RecordingObserver()
        let cache = cache(InMemoryETagStore(), events: events)
        let url = server.url("/fleet")
        _ = try await cache.send(HTTPRequest(url: url))
        #expect(events.events(ETagEvent.self).contains(.notStored(url, reason: .noValidator)))
        #expect(try await cache.send(HTTPRequest(url: url)).source == .network)
        #expect(server.requestCount == 2)
    }

    @Test("RFC 9111 §3: s-maxage counts as explicit freshness for a shared store's decision only")
    func storeDecision() {
        defer { server.stop() }
        let policy = ConditionalRequestPolicy()
        let response = makeResponse("x", headers: ["Cache-Control": "s-maxage=60"])
        let request = makeRequest("https://api.example.com/fleet")
        guard case .store = policy.storeDecision(for: response, to: request, times: .testExchange, sharedStorage: true) else {
            Issue.record("a shared store keeps it")
            return
        }
        #expect(policy.storeDecision(for: response, to: request, times: .testExchange) == .doNotStore(.noValidator))
    }
}
