#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing

/// Requests that carry the caller's own `If-None-Match` / `If-Modified-Since` (RFC 9111 §4.3.2),
/// on the scripted origin and an injected clock.
@Suite("ETagTransport answers the caller's own conditional requests from the store (RFC 9111 §4.3.2)")
struct CallerConditionalTests {
    private func url(_ cache: CacheHarness) -> URL { URL(string: cache.url)! }

    @Test("RFC 9111 §4.3.2: a fresh stored response answers the caller's If-None-Match with 304, no request sent")
    func freshAnswersIfNoneMatch() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60", "Content-Type": "text/plain"])
        _ = try await cache.get()
        cache.advance(10)
        let response = try await cache.get(["If-None-Match": "\"v1\""])
        #expect(response.statusCode == 304 && response.body.isEmpty && response.source == .fresh)
        #expect(cache.origin.requests == 1)
        // RFC 9110 §15.4.5: the fields a 200 would carry that a 304 repeats, and Age (§5.1).
        #expect(response.headers["ETag"] == "\"v1\"" && response.headers["Cache-Control"] == "max-age=60")
        #expect(response.headers["Date"] != nil && response.headers["Age"] == "10")
        #expect(response.headers["Content-Type"] == nil && response.headers["Content-Length"] == nil)
        #expect(cache.etagEvents().contains(.callerConditional(url(cache), outcome: .notModified)))
    }

    @Test("RFC 9110 §13.1.2: If-None-Match compares weakly, may list several tags, and * matches any stored response")
    func ifNoneMatchForms() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60"])
        _ = try await cache.get()
        for value in ["W/\"v1\"", "\"a\", \"v1\"", "\"a,b\" , W/\"v1\"", "*"] {
            #expect(try await cache.get(["If-None-Match": value]).statusCode == 304, "\(value)")
        }
        #expect(cache.origin.requests == 1)
    }

    @Test("RFC 9111 §4.3.2: a fresh stored response the caller's If-None-Match does not match answers in full, no request sent")
    func freshAnswersMismatchInFull() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60"])
        _ = try await cache.get()
        let response = try await cache.get(["If-None-Match": "\"v0\""])
        #expect(response.statusCode == 200 && response.text == "representation v1" && response.source == .fresh)
        #expect(cache.origin.requests == 1)
        #expect(cache.etagEvents().contains(.callerConditional(url(cache), outcome: .modified)))
    }

    @Test("RFC 9110 §13.1.3: If-Modified-Since is evaluated against the stored Last-Modified: not later gives 304, later the stored 200")
    func ifModifiedSince() async throws {
        let modified = CacheHarness.epoch.addingTimeInterval(-1_000)
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60", "Last-Modified": HTTPDate.format(modified)])
        _ = try await cache.get()
        #expect(try await cache.get(["If-Modified-Since": HTTPDate.format(modified)]).statusCode == 304)
        #expect(try await cache.get(["If-Modified-Since": HTTPDate.format(modified.addingTimeInterval(5))]).statusCode == 304)
        let older = try await cache.get(["If-Modified-Since": HTTPDate.format(modified.addingTimeInterval(-1))])
        #expect(older.statusCode == 200 && older.text == "representation v1")
        // An invalid date is ignored (§13.1.3): the stored response in full.
        #expect(try await cache.get(["If-Modified-Since": "yesterday"]).statusCode == 200)
        // §13.2.2: If-None-Match, present, decides alone.
        let both = try await cache.get(["If-None-Match": "\"v0\"", "If-Modified-Since": HTTPDate.format(modified)])
        #expect(both.statusCode == 200)
        #expect(cache.origin.requests == 1)
    }

    @Test("RFC 9111 §4.3.2: without a stored Last-Modified, If-Modified-Since is evaluated against the stored Date")
    func ifModifiedSinceWithoutLastModified() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60"])
        _ = try await cache.get()
        #expect(try await cache.get(["If-Modified-Since": HTTPDate.format(CacheHarness.epoch)]).statusCode == 304)
        #expect(try await cache.get(["If-Modified-Since": HTTPDate.format(CacheHarness.epoch.addingTimeInterval(-1))]).statusCode == 200)
        #expect(cache.origin.requests == 1)
    }

    @Test(
        "RFC 9111 §4.3.2: a stale stored response does not answer: the caller's If-None-Match goes to the origin, whose 304 is the caller's and freshens the store (§4.3.4)"
    )
    func staleForwardsCallerValidators() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60"])
        _ = try await cache.get()
        cache.advance(61)
        let forwarded = try await cache.get(["If-None-Match": "\"v1\""])
        #expect(forwarded.statusCode == 304 && forwarded.source == .network && forwarded.body.isEmpty)
        #expect(cache.origin.counts == (1, 1))
        #expect(cache.etagEvents().contains(.callerConditional(url(cache), outcome: .forwarded)))
        // The origin's 304 identified the stored response: it is fresh again.
        cache.advance(30)
        let fresh = try await cache.get()
        #expect(fresh.source == .fresh && fresh.headers["Age"] == "30" && cache.origin.requests == 2)
    }

    @Test("RFC 9111 §4.3.2: a 200 the origin sends to the caller's stale validators is the caller's, and is stored")
    func staleForwardedFullResponseIsStored() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60"])
        _ = try await cache.get()
        cache.advance(61)
        cache.origin.change()
        let full = try await cache.get(["If-None-Match": "\"v1\""])
        #expect(full.statusCode == 200 && full.text == "representation v2" && full.source == .network)
        let fresh = try await cache.get()
        #expect(fresh.source == .fresh && fresh.text == "representation v2" && cache.origin.requests == 2)
    }

    @Test("RFC 9111 §4.3.4: a 304 for a tag the store does not hold (the caller's own copy) leaves the stored response stale")
    func foreignNotModifiedDoesNotFreshen() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60"])
        _ = try await cache.get()
        cache.advance(61)
        cache.origin.change()
        // The caller holds v2 already; the store holds v1.
        #expect(try await cache.get(["If-None-Match": "\"v2\""]).statusCode == 304)
        let next = try await cache.get()
        #expect(next.text == "representation v2" && next.source == .network)
    }

    @Test(
        "RFC 9110 §13.2.1 and §15.4.5: an origin 304 to the caller's validators removes a stale stored 404 with that tag instead of freshening it"
    )
    func notModifiedRemovesStoredNonSuccess() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60", "ETag": "\"n1\""])
        cache.origin.answer(status: 404)
        #expect(try await cache.get().statusCode == 404)
        cache.advance(61)
        // A 304 says the selected representation is a 2xx with that tag: the stored 404 is outdated.
        cache.origin.answer(status: 304)
        #expect(try await cache.get(["If-None-Match": "\"n1\""]).statusCode == 304)
        cache.origin.answer(status: nil)
        cache.origin.setHeaders(["Cache-Control": "max-age=60"])
        let next = try await cache.get()
        #expect(next.statusCode == 200 && next.source == .network && cache.origin.requests == 3)
    }

    @Test("RFC 9110 §13.2.1: an origin 304 never freshens a stored status other than 2xx, whatever its tag")
    func notModifiedOutdatesNonSuccess() {
        let policy = ConditionalRequestPolicy()
        let notModified = makeResponse("", status: 304, headers: ["ETag": "\"n1\""])
        for status in [404, 410, 301, 501] {
            let entry = ETagCacheEntry(response: makeResponse("x", status: status, headers: ["ETag": "\"n1\""]))
            #expect(policy.callerNotModified(notModified, updates: entry, times: .testExchange) == .remove)
        }
        let found = ETagCacheEntry(response: makeResponse("x", headers: ["ETag": "\"n1\""]))
        guard case .freshen = policy.callerNotModified(notModified, updates: found, times: .testExchange) else {
            Issue.record("a matching 304 freshens a stored 200")
            return
        }
        let other = ETagCacheEntry(response: makeResponse("x", headers: ["ETag": "\"n2\""]))
        #expect(policy.callerNotModified(notModified, updates: other, times: .testExchange) == .leave)
    }

    @Test("RFC 9111 §4.3.2 with §5.2.1.2: a stale response the request's max-stale accepts answers the caller's If-None-Match with 304")
    func maxStaleAnswersWithNotModified() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60"])
        _ = try await cache.get()
        cache.advance(90)
        let response = try await cache.get(["If-None-Match": "\"v1\"", "Cache-Control": "max-stale=60"])
        #expect(response.statusCode == 304 && response.source == .stale && response.headers["Age"] == "90")
        #expect(cache.origin.requests == 1)
    }

    @Test("RFC 5861 §4 with RFC 9111 §4.3.2: when the origin fails, the stale-if-error answer to the caller's If-None-Match is a 304")
    func staleIfErrorAnswersWithNotModified() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60, stale-if-error=600"])
        _ = try await cache.get()
        cache.advance(120)
        cache.origin.answer(status: 503)
        let response = try await cache.get(["If-None-Match": "\"v1\""])
        #expect(response.statusCode == 304 && response.source == .stale)
    }

    @Test("RFC 5861 §3: the background refresh a caller's conditional request starts sends the layer's validators, not the caller's")
    func backgroundRefreshUsesStoredValidators() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60, stale-while-revalidate=600"])
        _ = try await cache.get()
        cache.advance(61)
        // The caller holds another copy: it gets the stored one in full, stale.
        let response = try await cache.get(["If-None-Match": "\"v0\""])
        #expect(response.statusCode == 200 && response.source == .stale)
        await cache.transport.backgroundRefreshesSettled()
        // Sent with the caller's "v0", the refresh would have downloaded v1 again: (2, 0).
        #expect(cache.origin.counts == (1, 1), "the refresh revalidated with the stored \"v1\"")
        #expect(!cache.etagEvents().contains(.callerConditional(url(cache), outcome: .forwarded)))
    }

    @Test(
        "RFC 9111 §4.3.2: stream answers the caller's If-None-Match from a fresh stored response with a 304 head, and forwards it when stale"
    )
    func streamAnswersCallerConditional() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60"])
        _ = try await cache.get()
        let request = makeRequest(cache.url, headers: ["If-None-Match": "\"v1\""])
        let fresh = try await cache.transport.stream(request) { head, body in
            (head.statusCode, try await body.collect(upTo: 1_024).count)
        }
        #expect(fresh == (304, 0) && cache.origin.requests == 1)
        cache.advance(61)
        let forwarded = try await cache.transport.stream(request) { head, _ in head.statusCode }
        #expect(forwarded == 304 && cache.origin.counts == (1, 1))
    }

    @Test("RFC 9111 §4.3.2: a HEAD with the caller's If-None-Match or If-Modified-Since is answered 304 from the stored GET response")
    func headAnswered() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60"])
        _ = try await cache.get()
        #expect(try await cache.get(["If-None-Match": "\"v1\""], method: "HEAD").statusCode == 304)
        #expect(try await cache.get(["If-Modified-Since": HTTPDate.format(CacheHarness.epoch)], method: "HEAD").statusCode == 304)
        let full = try await cache.get(["If-None-Match": "\"v0\""], method: "HEAD")
        #expect(full.statusCode == 200 && full.body.isEmpty)
        #expect(cache.origin.requests == 1)
    }

    @Test("RFC 9111 §4.3.2: If-Match, If-Unmodified-Since and If-Range apply to the origin only: the request passes through")
    func originOnlyPreconditionsPassThrough() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60"])
        _ = try await cache.get()
        for name in ["If-Match", "If-Unmodified-Since", "If-Range"] {
            #expect(try await cache.get([name: "\"v1\""]).source == .network, "\(name)")
        }
        #expect(cache.origin.requests == 4)
    }

    @Test("RFC 9110 §13.2.1: the caller's validators are ignored for a stored status other than 2xx: it answers in full")
    func nonSuccessIgnoresPreconditions() {
        let policy = ConditionalRequestPolicy()
        let notFound = ETagCacheEntry(response: makeResponse("gone", status: 404, headers: ["ETag": "\"n1\""]))
        let found = ETagCacheEntry(response: makeResponse("here", headers: ["ETag": "\"n1\""]))
        let request = makeRequest("https://api.example.com/a", headers: ["If-None-Match": "\"n1\""])
        let answer = policy.storedAnswer(notFound, for: request, age: 0, source: .fresh, now: { CacheHarness.epoch })
        #expect(answer.response.statusCode == 404 && answer.callerValidatorsMatched == false)
        #expect(policy.storedAnswer(found, for: request, age: 0, source: .fresh, now: { CacheHarness.epoch }).response.statusCode == 304)
    }

    @Test(
        "RFC 9111 §4.3.2: the plan uses the store for If-None-Match and If-Modified-Since, and passes the origin-only preconditions through"
    )
    func plan() {
        let policy = ConditionalRequestPolicy()
        let url = "https://api.example.com/a"
        for name in ["If-None-Match", "if-modified-since"] {
            #expect(policy.plan(for: makeRequest(url, headers: [name: "\"x\""])) == .useStore(storesBody: true))
        }
        for name in ["If-Match", "If-Unmodified-Since", "If-Range"] {
            #expect(
                policy.plan(for: makeRequest(url, headers: [name: "\"x\"", "If-None-Match": "\"y\""])) == .passThrough(.callerConditional))
        }
    }
}
