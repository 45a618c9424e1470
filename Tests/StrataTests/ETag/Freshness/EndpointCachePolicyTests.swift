#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing

@Suite("Per-endpoint cache policy and the shared-store Authorization rule")
struct EndpointCachePolicyTests {
    @Test("reuse(for:) serves a response for that long whatever its headers say, even without a validator")
    func reuseForATime() async throws {
        let clock = TestClock()
        let origin = ClosureTransport { _ in makeResponse("flags", headers: ["Cache-Control": "no-cache, max-age=0"]) }
        let transport = ETagTransport(inner: origin, clock: clock, wallClockOrigin: CacheHarness.epoch)
        let request = makeRequest("https://api.example.com/flags")
        let policy = EndpointCachePolicy.reuse(for: .seconds(30))
        _ = try await policy.apply { try await transport.send(request) }
        clock.advance(by: .seconds(29))
        let reused = try await policy.apply { try await transport.send(request) }
        #expect(reused.source == .fresh && reused.text == "flags" && reused.headers["Age"] == "29")
        // The same request without the endpoint's policy follows the headers: no-cache.
        #expect(try await transport.send(request).source == .network)
        clock.advance(by: .seconds(31))
        #expect(try await policy.apply { try await transport.send(request) }.source == .network)
        #expect(await origin.recordedRequests.count == 3)
    }

    @Test("alwaysRevalidate asks the server even for a fresh response")
    func alwaysRevalidate() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=600"])
        _ = try await cache.get()
        let response = try await EndpointCachePolicy.alwaysRevalidate.apply { try await cache.get() }
        #expect(response.source == .revalidated)
    }

    @Test("neverStore neither reads nor writes the store")
    func neverStore() async throws {
        let store = InMemoryETagStore()
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=600"], store: store)
        _ = try await EndpointCachePolicy.neverStore.apply { try await cache.get() }
        #expect(await store.count == 0)
        _ = try await cache.get()
        #expect(try await EndpointCachePolicy.neverStore.apply { try await cache.get() }.source == .network)
        #expect(cache.etagEvents().contains(.passedThrough(URL(string: cache.url)!, reason: .endpointNeverStores)))
    }

    private struct FlagsEndpoint: EndpointProtocol {
        var path: String { "/flags" }
        var method: HTTPMethod { .get }
        var cachePolicy: EndpointCachePolicy { .reuse(for: .seconds(60)) }
    }

    @Test("HTTPNetworkService applies the endpoint's cachePolicy to its requests")
    func serviceAppliesEndpointPolicy() async throws {
        let origin = ClosureTransport { request in
            makeResponse("{}", headers: ["Cache-Control": request.url.path == "/secret" ? "no-store" : "no-cache"])
        }
        let service = HTTPNetworkService(transport: ETagTransport(inner: origin))
        let environment = DefaultAPIEnvironment(baseURL: URL(string: "https://api.example.com")!)
        _ = try await service.response(to: FlagsEndpoint(), via: environment)
        let second = try await service.response(to: FlagsEndpoint(), via: environment)
        #expect(second.source == .fresh && (FlagsEndpoint() as any EndpointProtocol).cachePolicy == .reuse(for: .seconds(60)))
        #expect(await origin.recordedRequests.count == 1)
        // no-store is still honoured: reuse(for:) never stores what the server forbids storing.
        let transport = ETagTransport(inner: origin)
        let secret = makeRequest("https://api.example.com/secret")
        _ = try await EndpointCachePolicy.reuse(for: .seconds(60)).apply { try await transport.send(secret) }
        #expect(try await EndpointCachePolicy.reuse(for: .seconds(60)).apply { try await transport.send(secret) }.source == .network)
    }

    @Test(
        "§3.5 a shared store serves a response to an authorized request without the origin only when it says public, s-maxage or must-revalidate"
    )
    func sharedStoreAuthorization() async throws {
        let authorized = ["Authorization": "Bearer alice"]
        let plain = CacheHarness(headers: ["Cache-Control": "max-age=600"], store: SharedMemoryStore())
        _ = try await plain.get(authorized)
        #expect(try await plain.get(authorized).source == .revalidated, "the origin checks the credential each time")
        #expect(try await plain.get().source != .fresh)

        for directive in ["public, max-age=600", "max-age=600, s-maxage=600", "max-age=600, must-revalidate"] {
            let allowed = CacheHarness(headers: ["Cache-Control": directive], store: SharedMemoryStore())
            _ = try await allowed.get(authorized)
            #expect(try await allowed.get(authorized).source == .fresh, "\(directive)")
        }
    }

    @Test("§5.2.2.7 a private response in a shared store serves only as a validator; in a private store it is fresh")
    func privateResponses() async throws {
        let shared = CacheHarness(headers: ["Cache-Control": "private, max-age=600"], store: SharedMemoryStore())
        _ = try await shared.get()
        #expect(try await shared.get().source == .revalidated)
        let own = CacheHarness(headers: ["Cache-Control": "private, max-age=600"])
        _ = try await own.get(["Authorization": "Bearer alice"])
        #expect(try await own.get(["Authorization": "Bearer alice"]).source == .fresh)
        // Another credential is another partition: never Alice's entry.
        #expect(try await own.get(["Authorization": "Bearer bob"]).source == .network)
    }

    @Test("§4.2.1 a shared store's lifetime is s-maxage, before max-age; a private store ignores it")
    func sharedStoreLifetime() async throws {
        let shared = CacheHarness(headers: ["Cache-Control": "max-age=10, s-maxage=60"], store: SharedMemoryStore())
        _ = try await shared.get()
        shared.advance(30)
        #expect(try await shared.get().source == .fresh)
        let shorter = CacheHarness(headers: ["Cache-Control": "max-age=600, s-maxage=5"], store: SharedMemoryStore())
        _ = try await shorter.get()
        shorter.advance(30)
        #expect(try await shorter.get().source == .revalidated)
        let own = CacheHarness(headers: ["Cache-Control": "max-age=10, s-maxage=60"])
        _ = try await own.get()
        own.advance(30)
        #expect(try await own.get().source == .revalidated)
    }

    @Test(
        "§5.2.2.8 proxy-revalidate and §5.2.2.10 s-maxage: a shared store never serves the response stale (max-stale, stale-while-revalidate, stale-if-error); a private store does"
    )
    func sharedStoreNeverServesStale() async throws {
        for directive in ["max-age=10, proxy-revalidate", "s-maxage=10"] {
            let headers: HTTPHeaders = ["Cache-Control": "\(directive), stale-while-revalidate=60, stale-if-error=600"]
            let shared = CacheHarness(headers: headers, store: SharedMemoryStore())
            _ = try await shared.get()
            shared.advance(20)
            #expect(try await shared.get(["Cache-Control": "max-stale=600"]).source == .revalidated, "\(directive)")
            shared.advance(20)
            #expect(try await shared.get().source == .revalidated, "\(directive)")
            shared.advance(20)
            shared.origin.answer(status: 503)
            #expect(try await shared.get().statusCode == 503, "\(directive)")

            let own = CacheHarness(headers: headers)
            _ = try await own.get()
            own.advance(20)
            #expect(try await own.get(["Cache-Control": "max-stale=600"]).source == .stale, "\(directive)")
        }
    }

    @Test("§3.5 in a shared store, alwaysRevalidate's stale-if-error never answers with a private or an authorized response")
    func sharedStoreStaleIfErrorUnderAlwaysRevalidate() async throws {
        let cases: [([String: String], String)] = [
            ([:], "private, max-age=10, stale-if-error=600"),
            (["Authorization": "Bearer alice"], "max-age=10, stale-if-error=600"),
        ]
        for (requestHeaders, cacheControl) in cases {
            let cache = CacheHarness(headers: ["Cache-Control": cacheControl], store: SharedMemoryStore())
            _ = try await EndpointCachePolicy.alwaysRevalidate.apply { try await cache.get(requestHeaders) }
            cache.advance(20)
            cache.origin.answer(status: 503)
            let response = try await EndpointCachePolicy.alwaysRevalidate.apply { try await cache.get(requestHeaders) }
            #expect(response.statusCode == 503, "\(cacheControl)")
        }
    }

    @Test("a layer's own work (TransportEvents.detached) runs without the caller's ResponseBodyLimit and endpoint cache policy")
    func detachedClearsCallerScope() async {
        await ResponseBodyLimit.withMaxBytes(5) {
            await EndpointCachePolicy.neverStore.apply {
                await TransportEvents.detached {
                    #expect(ResponseBodyLimit.current == nil && EndpointCachePolicy.current == .standard)
                }
            }
        }
    }
}
