#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing
import TestServer

/// The caller's own conditional requests, normalised `Vary` and per-endpoint heuristic freshness
/// against the loopback server through URLSessionTransport: what reached the origin is what the
/// server recorded.
@Suite("ETagTransport reuse rules against the loopback server (RFC 9111 §4.1, §4.2.2, §4.3.2)", .timeLimit(.minutes(1)))
struct CacheReuseLoopbackTests {
    let server: LoopbackHTTPServer

    init() throws {
        server = try LoopbackHTTPServer()
        server.route("/fresh", method: "GET") { _ in
            .init(status: 200, headers: [("ETag", "\"f1\""), ("Cache-Control", "max-age=3600")], text: "fresh")
        }
        server.route("/stale", method: "GET") { request in
            if request.header("If-None-Match")?.contains("\"s1\"") == true {
                return .init(status: 304, headers: [("ETag", "\"s1\""), ("Cache-Control", "max-age=0")])
            }
            return .init(status: 200, headers: [("ETag", "\"s1\""), ("Cache-Control", "max-age=0")], text: "stale")
        }
        server.route("/languages", method: "GET") { request in
            .init(
                status: 200,
                headers: [("ETag", "\"l1\""), ("Cache-Control", "max-age=3600"), ("Vary", "Accept-Language")],
                text: "for \(request.header("Accept-Language") ?? "anyone")")
        }
        let tenDaysAgo = HTTPDate.format(Date().addingTimeInterval(-10 * 86_400))
        server.route("/modified", method: "GET") { _ in
            .init(status: 200, headers: [("ETag", "\"m1\""), ("Last-Modified", tenDaysAgo)], text: "modified")
        }
    }

    private func transport() -> any Transport {
        ETagTransport(inner: URLSessionTransport(requestTimeout: .seconds(30)))
    }

    private func get(_ transport: any Transport, _ path: String, _ headers: HTTPHeaders = [:]) async throws -> HTTPResponse {
        try await transport.send(HTTPRequest(url: server.url(path), headers: headers))
    }

    private func requests(_ path: String) -> [LoopbackHTTPServer.Request] {
        server.requests.filter { $0.path == path }
    }

    @Test("RFC 9111 §4.3.2: a fresh stored response answers the caller's If-None-Match with 304, no request sent")
    func freshAnswersCallerConditional() async throws {
        let cache = transport()
        _ = try await get(cache, "/fresh")
        let notModified = try await get(cache, "/fresh", ["If-None-Match": "\"f1\""])
        #expect(notModified.statusCode == 304 && notModified.source == .fresh && notModified.headers["ETag"] == "\"f1\"")
        let full = try await get(cache, "/fresh", ["If-None-Match": "\"other\""])
        #expect(full.statusCode == 200 && full.text == "fresh" && full.source == .fresh)
        #expect(requests("/fresh").count == 1)
    }

    @Test(
        "RFC 9111 §4.3.2: with a stale stored response, the caller's own If-None-Match reaches the origin untouched and its 304 is the caller's"
    )
    func staleForwardsCallerValidatorsUntouched() async throws {
        let cache = transport()
        _ = try await get(cache, "/stale")
        let response = try await get(cache, "/stale", ["If-None-Match": "\"s0\", \"s1\""])
        #expect(response.statusCode == 304 && response.source == .network && response.body.isEmpty)
        #expect(requests("/stale").map { $0.header("If-None-Match") } == [nil, "\"s0\", \"s1\""])
    }

    @Test("RFC 9111 §4.1: Accept-Language: en, fr then en,fr then EN, FR select the one stored response; fr, en does not")
    func varyNormalised() async throws {
        let cache = transport()
        let first = try await get(cache, "/languages", ["Accept-Language": "en, fr"])
        for spelling in ["en,fr", "EN , FR", "en,,fr"] {
            let again = try await get(cache, "/languages", ["Accept-Language": spelling])
            #expect(again.source == .fresh && again.text == first.text, "\(spelling)")
        }
        #expect(requests("/languages").count == 1)
        #expect(try await get(cache, "/languages", ["Accept-Language": "fr, en"]).source == .network)
        #expect(requests("/languages").count == 2)
    }

    @Test(
        "RFC 9111 §4.2.2: a Last-Modified-only response is fresh on an endpoint with heuristicFreshness(), and revalidated on one with the default"
    )
    func heuristicPerEndpoint() async throws {
        let cache = transport()
        _ = try await get(cache, "/modified")
        #expect(try await get(cache, "/modified").source == .network, "no 304 from this origin: downloaded again")
        #expect(requests("/modified").count == 2)
        let fresh = try await EndpointCachePolicy.heuristicFreshness().apply { try await get(cache, "/modified") }
        #expect(fresh.source == .fresh && fresh.text == "modified")
        #expect(requests("/modified").count == 2)
    }
}
