#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing
import TestServer

@Suite("ETagTransport reads a list-valued Age by its first member")
struct ListValuedAgeTests {
    @Test(
        "RFC 9111 §5.1: a list-valued Age uses its first member (`7200, 0` is two hours old, stale under max-age=3600)"
    )
    func firstMemberOld() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=3600", "Age": "7200, 0"])
        _ = try await cache.get()
        #expect(try await cache.get().source == .revalidated)
        #expect(cache.origin.counts == (1, 1))
    }

    @Test("RFC 9111 §5.1: a list-valued Age uses its first member (`0, 7200` is fresh, and ages from 0)")
    func firstMemberYoung() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=3600", "Age": "0, 7200"])
        _ = try await cache.get()
        cache.advance(10)
        let fresh = try await cache.get()
        #expect(fresh.source == .fresh && fresh.headers["Age"] == "10")
    }

    @Test(
        "RFC 9111 §5.1: an Age whose first member is not a non-negative integer is ignored",
        arguments: ["abc, 7200", "-7200", "7200.0", ""])
    func invalidFirstMemberIgnored(age: String) async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=3600", "Age": age])
        _ = try await cache.get()
        #expect(try await cache.get().source == .fresh)
    }

    @Test(
        "RFC 9111 §5.1: two Age field lines (`7200`, `0`) from a loopback origin, joined by URLSession, use the first: stale"
    )
    func twoFieldLinesThroughURLSession() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route("/old", response: .init(headers: [("Cache-Control", "max-age=3600"), ("Age", "7200"), ("Age", "0")], text: "old"))
        server.route("/young", response: .init(headers: [("Cache-Control", "max-age=3600"), ("Age", "0"), ("Age", "7200")], text: "young"))
        let cache = ETagTransport(inner: URLSessionTransport(requestTimeout: .seconds(30)), clock: TestClock())
        _ = try await cache.send(HTTPRequest(url: server.url("/old")))
        let old = try await cache.send(HTTPRequest(url: server.url("/old")))
        #expect(
            old.source == .network, "a response 2 hours old under max-age=3600 is stale; it has no validator, so it is downloaded again")
        _ = try await cache.send(HTTPRequest(url: server.url("/young")))
        #expect(try await cache.send(HTTPRequest(url: server.url("/young"))).source == .fresh)
        #expect(server.requests.map(\.path) == ["/old", "/old", "/young"])
    }
}
