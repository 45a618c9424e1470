#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing

/// Heuristic freshness (RFC 9111 §4.2.2), chosen per endpoint, on the scripted origin and an
/// injected clock.
@Suite("ETagTransport heuristic freshness per endpoint (RFC 9111 §4.2.2)")
struct HeuristicFreshnessTests {
    private static let modified = HTTPDate.format(CacheHarness.epoch.addingTimeInterval(-1_000))

    @Test(
        "RFC 9111 §4.2.2: heuristicFreshness() gives a Last-Modified-only response 10% of its age on that endpoint; the default endpoint revalidates"
    )
    func perEndpointOn() async throws {
        let cache = CacheHarness(headers: ["Last-Modified": Self.modified])
        let browserRule = EndpointCachePolicy.heuristicFreshness()
        _ = try await browserRule.apply { try await cache.get() }
        cache.advance(99)
        #expect(try await browserRule.apply { try await cache.get() }.source == .fresh)
        cache.advance(1)
        #expect(try await browserRule.apply { try await cache.get() }.source == .revalidated)
        #expect(cache.origin.counts == (1, 1))

        let plain = CacheHarness(headers: ["Last-Modified": Self.modified])
        _ = try await plain.get()
        #expect(try await plain.get().source == .revalidated, "off by default")
    }

    @Test("RFC 9111 §1.2.2: a heuristic limit past 2^31 seconds (.seconds(Int64.max)) is clamped to it instead of trapping")
    func hugeLimitClamped() {
        let policy = FreshnessPolicy()
        for limit: Duration in [.seconds(Int64.max), .seconds(Int64.max / 2), .seconds(Int64(CacheDirectives.maxDeltaSeconds) + 1)] {
            #expect(policy.heuristicLimit(for: .heuristicFreshness(upTo: limit)) == .seconds(CacheDirectives.maxDeltaSeconds))
        }
        #expect(policy.heuristicLimit(for: .heuristicFreshness(upTo: .milliseconds(1_500))) == .milliseconds(1_500))
    }

    @Test("RFC 9111 §4.2.2: heuristicFreshness() is capped at 24 hours by default, and at the limit given")
    func capped() async throws {
        let monthOld = HTTPDate.format(CacheHarness.epoch.addingTimeInterval(-30 * 86_400))
        let cache = CacheHarness(headers: ["Last-Modified": monthOld])
        let rule = EndpointCachePolicy.heuristicFreshness()
        _ = try await rule.apply { try await cache.get() }
        cache.advance(86_399)
        #expect(try await rule.apply { try await cache.get() }.source == .fresh)
        cache.advance(1)
        #expect(try await rule.apply { try await cache.get() }.source == .revalidated)

        let short = EndpointCachePolicy.heuristicFreshness(upTo: .seconds(30))
        let other = CacheHarness(headers: ["Last-Modified": monthOld])
        _ = try await short.apply { try await other.get() }
        other.advance(30)
        #expect(try await short.apply { try await other.get() }.source == .revalidated)
    }

    @Test("RFC 9111 §4.2.2: explicitFreshnessOnly turns heuristics off on its endpoint when the transport's FreshnessPolicy turns them on")
    func perEndpointOff() async throws {
        let cache = CacheHarness(
            headers: ["Last-Modified": Self.modified], freshness: FreshnessPolicy(heuristicLimit: .seconds(3_600)))
        _ = try await cache.get()
        #expect(try await cache.get().source == .fresh)
        #expect(try await EndpointCachePolicy.explicitFreshnessOnly.apply { try await cache.get() }.source == .revalidated)
    }

    @Test("RFC 9111 §4.2.2: never when the response has explicit freshness (max-age, Expires, even invalid) or no-cache")
    func notWithExplicitFreshness() async throws {
        let rule = EndpointCachePolicy.heuristicFreshness()
        for extra: HTTPHeaders in [["Cache-Control": "max-age=0"], ["Expires": "0"], ["Cache-Control": "no-cache"]] {
            var headers = extra
            headers["Last-Modified"] = Self.modified
            let cache = CacheHarness(headers: headers)
            _ = try await rule.apply { try await cache.get() }
            #expect(try await rule.apply { try await cache.get() }.source == .revalidated, "\(extra)")
        }
    }

    @Test("RFC 9111 §4.2.2: only a heuristically cacheable status (RFC 9110 §15.1), or a response marked public")
    func onlyHeuristicallyCacheableStatuses() {
        let freshness = FreshnessPolicy()
        let now = CacheHarness.epoch
        let times = ExchangeTimes(requestTime: now, responseTime: now)
        func use(_ status: Int, _ extra: HTTPHeaders = [:]) -> StoredResponseUse {
            var headers: HTTPHeaders = ["Last-Modified": Self.modified, "Date": HTTPDate.format(now)]
            for field in extra { headers.add(name: field.name, value: field.value) }
            let entry = ETagCacheEntry(response: makeResponse("x", status: status, headers: headers), exchangeTimes: times)
            return freshness.use(
                of: entry, for: makeRequest("https://api.example.com/a"), directives: .none, now: { now },
                rule: .heuristicFreshness(), sharedStorage: false)
        }
        for status in [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501] {
            if case .fresh = use(status) {} else { Issue.record("\(status) should be heuristically fresh") }
        }
        for status in [302, 307, 403, 500] {
            #expect(use(status) == .revalidate(staleIfError: nil), "\(status)")
        }
        if case .fresh = use(302, ["Cache-Control": "public"]) {} else { Issue.record("public makes 302 cacheable") }
    }

    @Test("the endpoint policies name what they do")
    func descriptions() {
        #expect(EndpointCachePolicy.heuristicFreshness().description == "standard, heuristic freshness up to 86400.0 s")
        #expect(EndpointCachePolicy.explicitFreshnessOnly.description == "standard, no heuristic freshness")
        #expect(EndpointCachePolicy.standard.description == "standard")
        #expect(EndpointCachePolicy.heuristicFreshness() != .standard && EndpointCachePolicy.explicitFreshnessOnly != .standard)
    }
}
