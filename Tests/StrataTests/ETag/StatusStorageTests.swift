#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing
import TestServer

/// Statuses other than 200, stored and reused: the store decision as a pure function, and what
/// a stored 404 means for `send`, a 304, `stream` and ``HTTPNetworkService``, against a loopback
/// origin through URLSessionTransport.
@Suite("Statuses other than 200 are stored under the same rules, and answer with their own status")
struct StatusStorageTests {
    let policy = ConditionalRequestPolicy()
    let get = makeRequest("https://api.example.com/items/1")

    private func decision(_ status: Int, _ headers: HTTPHeaders) -> ConditionalRequestPolicy.StoreDecision {
        policy.storeDecision(for: makeResponse("x", status: status, headers: headers), to: get, times: .testExchange)
    }

    private func isStored(_ decision: ConditionalRequestPolicy.StoreDecision) -> Bool {
        if case .store = decision { return true }
        return false
    }

    @Test(
        "RFC 9110 §15.1: a heuristically cacheable status with a validator is stored as a 200 is",
        arguments: [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501])
    func heuristicallyCacheable(status: Int) {
        #expect(isStored(decision(status, ["ETag": "\"1\""])))
        #expect(decision(status, [:]) == .doNotStore(.noValidator), "the same rules: a validator or a lifetime")
    }

    @Test(
        "RFC 9111 §3: any other final status is stored only with explicit freshness (max-age, Expires) or public",
        arguments: [201, 202, 205, 299, 302, 303, 307, 400, 403, 409, 422, 499, 505, 599])
    func explicitFreshnessOrPublic(status: Int) {
        #expect(decision(status, ["ETag": "\"1\""]) == .doNotStore(.status))
        #expect(isStored(decision(status, ["Cache-Control": "max-age=60"])))
        #expect(isStored(decision(status, ["Expires": "Tue, 14 Nov 2023 22:18:20 GMT"])))
        #expect(isStored(decision(status, ["Cache-Control": "public", "ETag": "\"1\""])))
        #expect(decision(status, ["Cache-Control": "public"]) == .doNotStore(.noValidator))
    }

    @Test(
        "RFC 9111 §3: in a private store, private makes any other final status storable, as public does; in a shared store it does not",
        arguments: [201, 302, 400, 403, 422])
    func privateInPrivateStore(status: Int) {
        let response = makeResponse("x", status: status, headers: ["Cache-Control": "private", "ETag": "\"1\""])
        #expect(isStored(policy.storeDecision(for: response, to: get, times: .testExchange, sharedStorage: false)))
        #expect(policy.storeDecision(for: response, to: get, times: .testExchange, sharedStorage: true) == .doNotStore(.status))
        let retry = makeResponse("x", status: 401, headers: ["Cache-Control": "private", "ETag": "\"1\""])
        #expect(
            policy.storeDecision(for: retry, to: get, times: .testExchange) == .doNotStore(.status),
            "a status that asks for a retry is still never stored")
    }

    @Test(
        "RFC 9111 §3: 206 (partial), 304, statuses that ask for a retry, and statuses outside 200–599 are never stored",
        arguments: [206, 304, 401, 407, 408, 429, 500, 502, 503, 504, 100, 600, 999])
    func neverStored(status: Int) {
        #expect(decision(status, ["Cache-Control": "public, max-age=60", "ETag": "\"1\""]) == .doNotStore(.status))
    }

    @Test(
        "RFC 9111 §4.3.3: a full 404 that may not be stored still outdates the stored 200 it answered for; a 503 does not",
        arguments: [(404, true), (410, true), (503, false)])
    func unstorableResponseOutdatesEntry(status: Int, outdates: Bool) async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "no-cache"])
        _ = try await cache.get()
        cache.origin.setHeaders([:])
        cache.origin.answer(status: status)
        #expect(try await cache.get().statusCode == status)
        cache.origin.answer(status: nil)
        _ = try await cache.get()
        // The third request is conditional only when the 200 is still stored.
        #expect(cache.counter.count("etag.validating") == (outdates ? 1 : 2))
        #expect(cache.counter.count("etag.miss") == (outdates ? 2 : 1))
    }

    @Test(
        "RFC 9111 §4.3.5: a HEAD answered 404 or 410 drops the stored 200 as a GET's 404 does (§4.3.3); a 503 does not",
        arguments: [(404, true), (410, true), (503, false)])
    func headOutdatesEntry(status: Int, outdates: Bool) async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "no-cache"])
        _ = try await cache.get()
        cache.origin.setHeaders([:])
        cache.origin.answer(status: status)
        #expect(try await cache.get(method: "HEAD").statusCode == status)
        cache.origin.answer(status: nil)
        _ = try await cache.get()
        // The last request is conditional only when the 200 is still stored.
        #expect(cache.counter.count("etag.validating") == (outdates ? 1 : 2), "the HEAD is conditional too")
        #expect(cache.counter.count("etag.miss") == (outdates ? 2 : 1))
    }

    @Test(
        "reuse(for:) reuses a heuristically cacheable status (a 404) for its time, but not a status that needs explicit freshness (a 400) or asks for a retry (a 503)",
        arguments: [(404, true), (400, false), (503, false)])
    func endpointReuse(status: Int, reused: Bool) async throws {
        let cache = CacheHarness(headers: [:])
        cache.origin.answer(status: status)
        let policy = EndpointCachePolicy.reuse(for: .seconds(30))
        _ = try await policy.apply { try await cache.get() }
        cache.advance(29)
        let second = try await policy.apply { try await cache.get() }
        #expect(second.statusCode == status && (second.source == .fresh) == reused)
        #expect(cache.origin.requests == (reused ? 1 : 2))
    }

    // MARK: Against a loopback origin

    /// A loopback origin: `/missing` is a 404 fresh for a minute (counted), `/gone` a 404 with
    /// an ETag, `no-cache`, and a 304 for that ETag.
    private static func origin() throws -> LoopbackHTTPServer {
        let server = try LoopbackHTTPServer()
        server.route(
            "/missing", method: "GET",
            response: .init(status: 404, headers: [("Cache-Control", "max-age=60"), ("Content-Type", "text/plain")], text: "no such item"))
        server.route("/gone", method: "GET") { request in
            guard request.header("If-None-Match") == "\"g1\"" else {
                return .init(status: 404, headers: [("ETag", "\"g1\""), ("Cache-Control", "no-cache")], text: "not here")
            }
            return .init(status: 304, headers: [("ETag", "\"g1\""), ("Cache-Control", "no-cache")])
        }
        server.route("/unavailable", method: "GET", response: .init(status: 503, headers: [("Cache-Control", "max-age=60")], text: "later"))
        return server
    }

    private func cache() -> ETagTransport {
        ETagTransport(inner: URLSessionTransport(requestTimeout: .seconds(30)), clock: TestClock())
    }

    @Test("RFC 9111 §4.2: a stored 404 with max-age answers the next request for that URL, with its status and body, with no network")
    func stored404AnswersSend() async throws {
        let server = try Self.origin()
        defer { server.stop() }
        let cache = cache()
        let first = try await cache.send(HTTPRequest(url: server.url("/missing")))
        let second = try await cache.send(HTTPRequest(url: server.url("/missing")))
        #expect(first.statusCode == 404 && first.source == .network)
        #expect(second.statusCode == 404 && second.source == .fresh && second.text == "no such item")
        #expect(second.headers["Age"] == "0" && second.headers["Content-Type"] == "text/plain")
        #expect(server.requestCount == 1)
    }

    @Test("RFC 9111 §4.3.4: a 304 revalidates a stored 404: the caller gets the 404 with its stored body")
    func revalidated404() async throws {
        let server = try Self.origin()
        defer { server.stop() }
        let cache = cache()
        _ = try await cache.send(HTTPRequest(url: server.url("/gone")))
        let revalidated = try await cache.send(HTTPRequest(url: server.url("/gone")))
        #expect(revalidated.statusCode == 404 && revalidated.source == .revalidated && revalidated.text == "not here")
        #expect(server.requests.map { $0.header("If-None-Match") } == [nil, "\"g1\""])
    }

    @Test("RFC 9111 §4.2: stream answers from a stored 404 with its status and body, as send does")
    func stored404AnswersStream() async throws {
        let server = try Self.origin()
        defer { server.stop() }
        let cache = cache()
        let read: @Sendable (HTTPResponseHead, HTTPBody) async throws -> (Int, String) = { head, body in
            (head.statusCode, String(decoding: try await body.collect(upTo: 1 << 20), as: UTF8.self))
        }
        let first = try await cache.stream(HTTPRequest(url: server.url("/missing")), read)
        let second = try await cache.stream(HTTPRequest(url: server.url("/missing")), read)
        #expect(first == (404, "no such item") && second == (404, "no such item"))
        #expect(server.requestCount == 1, "the streamed 404 was stored as it was read, and answered the second stream")
    }

    @Test("a stored 404 surfaces from HTTPNetworkService as the same NetworkError.httpStatus a live 404 does, for response and stream")
    func stored404IsTheSameError() async throws {
        let server = try Self.origin()
        defer { server.stop() }
        let service = HTTPNetworkService(transport: cache())
        let environment = DefaultAPIEnvironment(baseURL: server.baseURL)
        func failure() async -> HTTPResponse? {
            do {
                _ = try await service.response(to: TestEndpoint(path: "/missing"), via: environment)
            } catch NetworkError.httpStatus(let response) {
                return response
            } catch {}
            return nil
        }
        let live = await failure()
        let stored = await failure()
        #expect(live?.source == .network && stored?.source == .fresh)
        #expect(live?.statusCode == 404 && stored?.statusCode == 404 && stored?.text == live?.text)
        #expect(stored?.url == live?.url)
        await #expect {
            try await service.stream(TestEndpoint(path: "/missing"), via: environment) { _, _ in () }
        } throws: { error in
            guard case NetworkError.httpStatus(let response) = error else { return false }
            return response.statusCode == 404 && response.text == "no such item"
        }
        #expect(server.requestCount == 1)
    }

    @Test(
        "RFC 9111 §3.3: a 301 or 308 without Location, whose body FoundationNetworking discarded, is never stored as if complete",
        arguments: [301, 308])
    func redirectWithoutLocationNotStored(status: Int) async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.route(
            "/moved", method: "GET",
            response: .init(status: status, headers: [("Cache-Control", "max-age=60"), ("ETag", "\"m1\"")], text: "moved nowhere"))
        let cache = cache()
        let first = try await cache.send(HTTPRequest(url: server.url("/moved")))
        let second = try await cache.send(HTTPRequest(url: server.url("/moved")))
        #expect(first.statusCode == status && second.statusCode == status && second.source == .network)
        #expect(server.requestCount == 2)
    }

    @Test(
        "RFC 9111 §3.3: a 3xx without Location or Content-Length may have lost its body and is not stored; with either, it is",
        arguments: [300, 301, 302, 307, 308])
    func redirectWithoutLengthDecision(status: Int) {
        let fresh: HTTPHeaders = ["Cache-Control": "max-age=60", "ETag": "\"1\""]
        let bodiless = policy.storeDecision(
            for: makeResponse("", status: status, headers: fresh), to: get, times: .testExchange)
        #expect(bodiless == .doNotStore(.bodyMayBeIncomplete))
        var withLength = fresh
        withLength.add(name: "Content-Length", value: "0")
        #expect(isStored(decision(status, withLength)))
        var withLocation = fresh
        withLocation.add(name: "Location", value: "/elsewhere")
        #expect(isStored(decision(status, withLocation)))
        #expect(isStored(decision(404, fresh)), "only a 3xx loses its body that way")
    }

    @Test("a 503 with max-age is not stored: it asks for a retry, and the retry reaches the origin")
    func failureNotStored() async throws {
        let server = try Self.origin()
        defer { server.stop() }
        let cache = cache()
        _ = try await cache.send(HTTPRequest(url: server.url("/unavailable")))
        #expect(try await cache.send(HTTPRequest(url: server.url("/unavailable"))).source == .network)
        #expect(server.requestCount == 2)
    }
}
