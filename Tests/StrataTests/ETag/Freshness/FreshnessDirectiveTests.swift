#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing

@Suite("ETagTransport freshness, one RFC 9111 rule per test, on an injected clock")
struct FreshnessDirectiveTests {
    @Test("§4.2.1 max-age: a fresh response is served with no network and an Age counted from receipt; stale, it is revalidated")
    func maxAge() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60"])
        let first = try await cache.get()
        cache.advance(10)
        let fresh = try await cache.get()
        #expect(first.source == .network && fresh.source == .fresh && fresh.text == first.text)
        #expect(fresh.headers["Age"] == "10")
        #expect(cache.origin.requests == 1)
        cache.advance(50)
        let revalidated = try await cache.get()
        #expect(revalidated.source == .revalidated && cache.origin.counts == (1, 1))
        // The 304 started a new freshness period.
        cache.advance(59)
        #expect(try await cache.get().source == .fresh)
        #expect(cache.etagEvents().contains(.fresh(URL(string: cache.url)!, age: 10)))
    }

    @Test("§4.2.3 age: the Age received plus the response delay, or the apparent age from Date, whichever is larger")
    func ageCalculation() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60", "Age": "30"])
        cache.origin.take(.seconds(2))
        _ = try await cache.get()
        cache.origin.take(.zero)
        // corrected_age_value = 30 + 2 (response delay); apparent_age = 0.
        #expect(try await cache.get().headers["Age"] == "32")
        cache.advance(27)
        #expect(try await cache.get().headers["Age"] == "59")
        cache.advance(1)
        #expect(try await cache.get().source == .revalidated)

        // A Date 20 s before receipt (a response that waited in a queue upstream): apparent age 20.
        let dated = CacheHarness(headers: [:])
        dated.origin.setHeaders(["Cache-Control": "max-age=60"])
        let store = InMemoryETagStore()
        let transport = ETagTransport(
            inner: ClosureTransport { _ in
                HTTPResponse(
                    statusCode: 200,
                    headers: [
                        "Cache-Control": "max-age=60", "ETag": "\"1\"",
                        "Date": HTTPDate.format(CacheHarness.epoch.addingTimeInterval(-20)),
                    ],
                    body: Data("x".utf8))
            }, store: store, clock: dated.clock, wallClockOrigin: CacheHarness.epoch)
        _ = try await transport.send(makeRequest(dated.url))
        #expect(try await transport.send(makeRequest(dated.url)).headers["Age"] == "20")
    }

    @Test("§4.3.4 a 304 without Age drops the stored Age: the age restarts from the 304's exchange, not from the old Age")
    func notModifiedDropsStoredAge() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60", "Age": "30"])
        _ = try await cache.get()
        cache.advance(40)
        cache.origin.setHeaders(["Cache-Control": "max-age=60"])
        let revalidated = try await cache.get()
        #expect(revalidated.source == .revalidated && revalidated.headers["Age"] == nil)
        cache.advance(40)
        let fresh = try await cache.get()
        #expect(fresh.source == .fresh && fresh.headers["Age"] == "40")
    }

    @Test("§4.2.1 Expires − Date is the lifetime when there is no max-age; max-age wins over Expires")
    func expires() async throws {
        let expiring = CacheHarness(headers: [:])
        expiring.origin.setHeaders(["Expires": HTTPDate.format(CacheHarness.epoch.addingTimeInterval(30))])
        _ = try await expiring.get()
        expiring.advance(29)
        #expect(try await expiring.get().source == .fresh)
        expiring.advance(1)
        #expect(try await expiring.get().source == .revalidated)

        let both = CacheHarness(headers: [
            "Cache-Control": "max-age=5",
            "Expires": HTTPDate.format(CacheHarness.epoch.addingTimeInterval(300)),
        ])
        _ = try await both.get()
        both.advance(6)
        #expect(try await both.get().source == .revalidated)
    }

    @Test("§5.3 an invalid Expires, such as 0, is already expired")
    func invalidExpires() async throws {
        let cache = CacheHarness(headers: ["Expires": "0"])
        _ = try await cache.get()
        #expect(try await cache.get().source == .revalidated)
    }

    @Test("§4.2.1 a private cache ignores s-maxage: a response with only s-maxage is stale at once")
    func sharedMaxAgeIgnored() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "s-maxage=600"])
        _ = try await cache.get()
        #expect(try await cache.get().source == .revalidated)
    }

    @Test("§4.2.1 an invalid max-age is max-age=0: stale")
    func invalidMaxAge() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=soon"])
        _ = try await cache.get()
        #expect(try await cache.get().source == .revalidated)
    }

    @Test("§5.2.2.4 response no-cache: revalidated on every use, even while fresh")
    func responseNoCache() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=600, no-cache"])
        _ = try await cache.get()
        #expect(try await cache.get().source == .revalidated)
        #expect(try await cache.get().source == .revalidated)
        #expect(cache.origin.counts == (1, 2))
    }

    @Test("§5.2.2.2 must-revalidate: fresh, it is served; stale, never without the origin, not for max-stale nor on error")
    func mustRevalidate() async throws {
        let cache = CacheHarness(
            headers: ["Cache-Control": "max-age=10, must-revalidate, stale-if-error=600"],
            freshness: FreshnessPolicy(staleIfError: .seconds(600)))
        _ = try await cache.get()
        #expect(try await cache.get().source == .fresh)
        cache.advance(11)
        #expect(try await cache.get(["Cache-Control": "max-stale=3600"]).source == .revalidated)
        cache.advance(11)
        cache.origin.answer(status: 503)
        #expect(try await cache.get().statusCode == 503)
        cache.origin.fail(with: TransportError(.cannotConnect))
        await #expect(throws: TransportError.self) { try await cache.get() }
    }

    @Test("§5.2.2.5 response no-store: never stored, so never fresh")
    func responseNoStore() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=600, no-store"])
        _ = try await cache.get()
        #expect(try await cache.get().source == .network)
        #expect(cache.origin.counts == (2, 0))
    }

    @Test("§5.2.1.4 request no-cache: a fresh response is revalidated")
    func requestNoCache() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=600"])
        _ = try await cache.get()
        #expect(try await cache.get(["Cache-Control": "no-cache"]).source == .revalidated)
        #expect(try await cache.get().source == .fresh)
    }

    @Test("§5.2.1.1 request max-age: max-age=0 revalidates; max-age=N accepts a response no older than N")
    func requestMaxAge() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=600"])
        _ = try await cache.get()
        cache.advance(30)
        #expect(try await cache.get(["Cache-Control": "max-age=0"]).source == .revalidated)
        cache.advance(30)
        #expect(try await cache.get(["Cache-Control": "max-age=30"]).source == .fresh)
        cache.advance(1)
        #expect(try await cache.get(["Cache-Control": "max-age=30"]).source == .revalidated)
    }

    @Test("§5.2.1.3 request min-fresh: a response fresh for less than min-fresh is revalidated")
    func minFresh() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60"])
        _ = try await cache.get()
        cache.advance(40)
        #expect(try await cache.get(["Cache-Control": "min-fresh=10"]).source == .fresh)
        cache.advance(11)
        #expect(try await cache.get(["Cache-Control": "min-fresh=10"]).source == .revalidated)
    }

    @Test("§5.2.1.2 request max-stale: a stale response within it is served as stale; beyond it, revalidated")
    func maxStale() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=10"])
        _ = try await cache.get()
        cache.advance(15)
        let stale = try await cache.get(["Cache-Control": "max-stale=10"])
        #expect(stale.source == .stale && stale.headers["Age"] == "15")
        #expect(try await cache.get(["Cache-Control": "max-stale"]).source == .stale)
        cache.advance(6)
        #expect(try await cache.get(["Cache-Control": "max-stale=10"]).source == .revalidated)
        #expect(cache.origin.counts == (1, 1))
        #expect(cache.etagEvents().contains(.servedStale(URL(string: cache.url)!, age: 15, reason: .maxStale)))
    }

    @Test("§5.2.1.7 request only-if-cached: a 504 when nothing usable is stored, the stored response when it is fresh")
    func onlyIfCached() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=10"])
        let absent = try await cache.get(["Cache-Control": "only-if-cached"])
        #expect(absent.statusCode == 504 && absent.source == .generated && cache.origin.requests == 0)
        _ = try await cache.get()
        #expect(try await cache.get(["Cache-Control": "only-if-cached"]).source == .fresh)
        cache.advance(11)
        #expect(try await cache.get(["Cache-Control": "only-if-cached"]).statusCode == 504)
        #expect(cache.origin.requests == 1)
    }

    @Test("§4.2.2 heuristic freshness is off by default; opted in, 10% of Date − Last-Modified, capped")
    func heuristicFreshness() async throws {
        let modified = HTTPDate.format(CacheHarness.epoch.addingTimeInterval(-1_000))
        let off = CacheHarness(headers: ["Last-Modified": modified])
        _ = try await off.get()
        #expect(try await off.get().source == .revalidated)

        let on = CacheHarness(headers: ["Last-Modified": modified], freshness: FreshnessPolicy(heuristicLimit: .seconds(3_600)))
        _ = try await on.get()
        on.advance(99)
        #expect(try await on.get().source == .fresh)
        on.advance(1)
        #expect(try await on.get().source == .revalidated)

        let capped = CacheHarness(headers: ["Last-Modified": modified], freshness: FreshnessPolicy(heuristicLimit: .seconds(30)))
        _ = try await capped.get()
        capped.advance(30)
        #expect(try await capped.get().source == .revalidated)
    }

    @Test("a response without a validator but with max-age is stored, served fresh, then downloaded again")
    func freshWithoutValidator() async throws {
        let clock = TestClock()
        let origin = ClosureTransport { _ in makeResponse("plain", headers: ["Cache-Control": "max-age=10"]) }
        let transport = ETagTransport(inner: origin, clock: clock, wallClockOrigin: CacheHarness.epoch)
        _ = try await transport.send(makeRequest("https://api.example.com/plain"))
        #expect(try await transport.send(makeRequest("https://api.example.com/plain")).source == .fresh)
        clock.advance(by: .seconds(11))
        let again = try await transport.send(makeRequest("https://api.example.com/plain"))
        #expect(again.source == .network && again.text == "plain")
        #expect(await origin.recordedRequests.count == 2)
        #expect(await origin.recordedRequests[1].headers["If-None-Match"] == nil)
    }

    @Test("HEAD is answered from a fresh GET entry with the stored headers and no body")
    func headFromFreshEntry() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60"])
        _ = try await cache.get()
        let head = try await cache.get(method: "HEAD")
        #expect(head.source == .fresh && head.body.isEmpty && head.headers["ETag"] == cache.origin.etag)
        #expect(cache.origin.requests == 1)
    }

    @Test("an entry without exchange times (written before 0.4) is stale: revalidated, never fresh, then fresh again")
    func entryWithoutTimesIsStale() async throws {
        let store = InMemoryETagStore()
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=600"], store: store)
        _ = try await cache.get()
        let key = ConditionalRequestPolicy().primaryKey(for: makeRequest(cache.url))
        var old = try #require(await store.cachedResponse(for: key))
        old.exchangeTimes = nil
        await store.store(old, for: key)
        #expect(try await cache.get().source == .revalidated)
        #expect(try await cache.get().source == .fresh)
    }

    @Test("with servesFreshResponses off, every GET goes to the server, as before 0.4")
    func freshnessOff() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=600"], freshness: FreshnessPolicy(servesFreshResponses: false))
        _ = try await cache.get()
        #expect(try await cache.get().source == .revalidated)
    }

    @Test("a fresh response is streamed from the store, with no network")
    func streamedFresh() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60"])
        _ = try await cache.get()
        cache.advance(5)
        let (age, text) = try await cache.transport.stream(makeRequest(cache.url)) { head, body in
            (head.headers["Age"], String(decoding: try await body.collect(upTo: 1 << 20), as: UTF8.self))
        }
        #expect(age == "5" && text == cache.origin.body && cache.origin.requests == 1)
    }
}
