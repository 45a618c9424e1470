import Foundation
@testable import Strata
import StrataTesting
import Testing

@Suite("Stores keep what freshness needs, in a versioned record")
struct StoredFreshnessTests {
    @Test("a FileETagStore keeps the exchange times: after a restart the entry is still fresh, with the same age")
    func fileStoreAcrossRestart() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let before = CacheHarness(headers: ["Cache-Control": "max-age=60"], store: try FileETagStore(directory: directory.storeURL))
        _ = try await before.get()
        before.advance(20)
        let restarted = ETagTransport(
            inner: before.origin.transport, store: try FileETagStore(directory: directory.storeURL),
            clock: before.clock, wallClockOrigin: before.origin.now)
        let response = try await restarted.send(makeRequest(before.url))
        #expect(response.source == .fresh && response.headers["Age"] == "20" && before.origin.requests == 1)
    }

    @Test("an entry written without exchange times, as Strata 0.3 wrote them, reads as stale: revalidated, then fresh")
    func earlierFormatIsStale() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = try FileETagStore(directory: directory.storeURL)
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60"], store: store)
        let key = ConditionalRequestPolicy().primaryKey(for: makeRequest(cache.url))
        let old = ETagCacheEntry(
            response: HTTPResponse(
                statusCode: 200,
                headers: [
                    "ETag": cache.origin.etag, "Cache-Control": "max-age=60", "Date": HTTPDate.format(CacheHarness.epoch),
                ], body: Data(cache.origin.body.utf8), url: URL(string: cache.url)))
        let bytes = try ETagEntryFileFormat.encode(key: key, entry: old, authenticationKey: [])
        #expect(bytes.range(of: Data("exchangeTimes".utf8)) == nil, "the 0.3 layout has no exchange times")
        await store.store(old, for: key)
        #expect(try await cache.get().source == .revalidated)
        #expect(try await cache.get().source == .fresh)
    }

    @Test("an entry received in the future (planted in a shared store, or from a skewed clock) is revalidated, not fresh for ever")
    func futureEntryIsRevalidated() async throws {
        let store = SharedMemoryStore()
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=60"], store: store)
        let key = ConditionalRequestPolicy().primaryKey(for: makeRequest(cache.url))
        let future = CacheHarness.epoch.addingTimeInterval(365 * 86_400)
        let planted = ETagCacheEntry(
            response: HTTPResponse(
                statusCode: 200,
                headers: [
                    "ETag": cache.origin.etag, "Cache-Control": "max-age=60", "Date": HTTPDate.format(future),
                ], body: Data("planted".utf8), url: URL(string: cache.url)),
            exchangeTimes: ExchangeTimes(requestTime: future, responseTime: future))
        await store.store(planted, for: key)
        #expect(try await cache.get().source == .revalidated)
        // The 304 dated it anew: it ages from now.
        cache.advance(30)
        #expect(try await cache.get().headers["Age"] == "30")
    }

    @Test("exchange times of another version decode as none, and the rest of the entry still decodes")
    func unknownVersion() throws {
        let entry = ETagCacheEntry(response: makeResponse("x", headers: ["ETag": "\"1\""]), exchangeTimes: .testExchange)
        let json = String(decoding: try JSONEncoder().encode(entry), as: UTF8.self)
        #expect(json.contains("\"version\":1"))
        let future = try JSONDecoder().decode(
            ETagCacheEntry.self,
            from: Data(
                json.replacingOccurrences(
                    of: "\"version\":1", with: "\"version\":2"
                ).utf8))
        #expect(future.exchangeTimes == nil && future.etag == "\"1\"" && future.body == entry.body)
        #expect(try JSONDecoder().decode(ETagCacheEntry.self, from: Data(json.utf8)) == entry)
    }

    @Test("the entry file format round-trips exchange times")
    func fileFormatRoundTrip() throws {
        let entry = ETagCacheEntry(
            response: makeResponse("x", headers: ["ETag": "\"1\""]),
            exchangeTimes: ExchangeTimes(
                requestTime: Date(timeIntervalSince1970: 1_700_000_000.25),
                responseTime: Date(timeIntervalSince1970: 1_700_000_001.5)))
        let bytes = try ETagEntryFileFormat.encode(key: "k", entry: entry, authenticationKey: [1, 2, 3])
        #expect(try ETagEntryFileFormat.decode(bytes, for: "k", authenticationKey: [1, 2, 3]).exchangeTimes == entry.exchangeTimes)
    }
}
