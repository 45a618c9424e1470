#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing
import TestServer

/// Invalidation by methods whose safety this layer does not know, against a loopback origin
/// through URLSessionTransport: `/resource` and the `Location` and `Content-Location` targets
/// are fresh for an hour, so only an invalidation sends a `GET` of them to the origin again.
@Suite("A successful request with a method not known to be safe invalidates, as POST does")
struct UnsafeMethodInvalidationTests {
    let server: LoopbackHTTPServer
    let status = LockedValue(200)

    init() throws {
        server = try LoopbackHTTPServer()
        for path in ["/resource", "/location-target", "/content-location-target"] {
            server.route(path, method: "GET", response: .init(headers: [("Cache-Control", "max-age=3600")], text: path))
        }
        let status = status
        for method in ["M-SEARCH", "PROPPATCH", "OPTIONS"] {
            server.route("/resource", method: method) { _ in
                .init(
                    status: status.withLock { $0 },
                    headers: [("Location", "/location-target"), ("Content-Location", "/content-location-target")],
                    text: "done")
            }
        }
    }

    /// The transport, with the three resources stored and fresh.
    private func warmedCache() async throws -> ETagTransport {
        let cache = ETagTransport(inner: URLSessionTransport(requestTimeout: .seconds(30)), clock: TestClock())
        for path in ["/resource", "/location-target", "/content-location-target"] {
            _ = try await cache.send(HTTPRequest(url: server.url(path)))
            #expect(try await cache.send(HTTPRequest(url: server.url(path))).source == .fresh)
        }
        return cache
    }

    /// The paths `GET` from the origin after `count` earlier requests.
    private func gets(after count: Int) -> [String] {
        server.requests.dropFirst(count).filter { $0.method == "GET" }.map(\.path)
    }

    @Test(
        "RFC 9111 §4.4: a 2xx to an unknown method (M-SEARCH, PROPPATCH) invalidates the target URI and the same-origin Location and Content-Location",
        arguments: ["M-SEARCH", "PROPPATCH"])
    func unknownMethodInvalidates(method: String) async throws {
        defer { server.stop() }
        let cache = try await warmedCache()
        let before = server.requests.count
        let request = HTTPRequest(method: HTTPMethod(rawValue: method), url: server.url("/resource"), body: HTTPBody(Data("abc".utf8)))
        #expect(try await cache.send(request).statusCode == 200)
        for path in ["/resource", "/location-target", "/content-location-target"] {
            #expect(try await cache.send(HTTPRequest(url: server.url(path))).source == .network, "\(path)")
        }
        #expect(gets(after: before) == ["/resource", "/location-target", "/content-location-target"])
    }

    @Test("RFC 9111 §4.4: an error response to an unknown method invalidates nothing")
    func failedUnknownMethodKeepsEntries() async throws {
        defer { server.stop() }
        let cache = try await warmedCache()
        status.withLock { $0 = 500 }
        #expect(try await cache.send(HTTPRequest(method: "M-SEARCH", url: server.url("/resource"))).statusCode == 500)
        #expect(try await cache.send(HTTPRequest(url: server.url("/resource"))).source == .fresh)
    }

    @Test("RFC 9110 §9.2.1: a safe method (OPTIONS) invalidates nothing")
    func safeMethodKeepsEntries() async throws {
        defer { server.stop() }
        let cache = try await warmedCache()
        _ = try await cache.send(HTTPRequest(method: .options, url: server.url("/resource")))
        for path in ["/resource", "/location-target", "/content-location-target"] {
            #expect(try await cache.send(HTTPRequest(url: server.url(path))).source == .fresh, "\(path)")
        }
    }

    @Test("RFC 9111 §4.4: the plan invalidates on success for every method not known to be safe; OPTIONS and TRACE pass through")
    func plans() {
        defer { server.stop() }
        let policy = ConditionalRequestPolicy()
        let url = "https://api.example.com/items/1"
        // Methods are case-sensitive (RFC 9110 §9.1): `get` is not GET, and its safety is unknown.
        for method in ["POST", "PUT", "PATCH", "DELETE", "M-SEARCH", "PROPPATCH", "LOCK", "CONNECT", "get"] {
            #expect(policy.plan(for: makeRequest(url, method: method)) == .invalidateOnSuccess, "\(method)")
        }
        for method in ["OPTIONS", "TRACE"] {
            #expect(policy.plan(for: makeRequest(url, method: method)) == .passThrough(.method), "\(method)")
        }
    }
}
