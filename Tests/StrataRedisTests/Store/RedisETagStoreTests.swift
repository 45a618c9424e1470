import Foundation
import RedisTestServer
import Strata
@testable import StrataRedis
import Testing

@Suite("RedisETagStore against a real redis-server", .needsRedisServer)
struct RedisETagStoreTests {
    @Test("an entry stored by one store is read by another on the same Redis, under a digested key")
    func sharedRoundTrip() async throws {
        let server = try await RedisServerProcess.start()
        let writer = try makeStore(server.url())
        let reader = try makeStore(server.url())
        let entry = makeEntry("shared body")
        await writer.store(entry, for: "key-1")

        #expect(await reader.cachedResponse(for: "key-1") == entry)
        #expect(await reader.containsEntry(for: "key-1"))
        #expect(await reader.cachedResponse(for: "key-2") == nil)
        #expect(await !reader.containsEntry(for: "key-2"))
        let keys = try await RedisAdmin(server.url()).keys()
        #expect(keys == ["test:etag:" + ETagStoreEvent.keyDigest(of: "key-1")])
    }

    @Test("remove deletes one entry for every instance; removeAll empties only its own namespace")
    func removal() async throws {
        let server = try await RedisServerProcess.start()
        let store = try makeStore(server.url())
        let neighbour = try makeStore(server.url(), namespace: "test:etag:v2")
        for index in 0..<600 { await store.store(makeEntry("body \(index)"), for: "key-\(index)") }
        await neighbour.store(makeEntry("neighbour"), for: "key-0")
        let admin = try RedisAdmin(server.url())
        try await admin.run("SET", "test:etag:not-an-entry", "kept")

        await store.remove(for: "key-7")
        #expect(await store.cachedResponse(for: "key-7") == nil)
        #expect(await store.cachedResponse(for: "key-8") != nil)
        await store.removeAll()
        #expect(await store.cachedResponse(for: "key-8") == nil)
        #expect(
            try await admin.keys().sorted()
                == ["test:etag:not-an-entry", "test:etag:v2:" + ETagStoreEvent.keyDigest(of: "key-0")])
    }

    @Test("a corrupt, truncated, foreign or misplaced value planted by hand is a miss, reported as unreadable")
    func plantedValues() async throws {
        let server = try await RedisServerProcess.start()
        let events = StoreEvents()
        let store = try makeStore(server.url(), events: events)
        let admin = try RedisAdmin(server.url())
        await store.store(makeEntry("genuine"), for: "genuine")
        let genuine = try #require(try await admin.value("test:etag:" + ETagStoreEvent.keyDigest(of: "genuine")))
        var flipped = genuine
        flipped[flipped.count - 1] ^= 0x01
        let plants: [(String, [UInt8])] = [
            ("garbage", Array(String(repeating: "not an entry ", count: 6).utf8)),
            ("truncated", Array(genuine.dropLast(3))),
            ("flipped", flipped),
            ("misplaced", genuine), // a valid entry, but for the key "genuine"
        ]
        for (name, bytes) in plants {
            try await admin.run("SET", RedisArgument("test:etag:" + ETagStoreEvent.keyDigest(of: name)), RedisArgument(bytes: bytes))
            #expect(await store.cachedResponse(for: name) == nil, "\(name)")
        }
        let reasons = events.all.compactMap { if case .unreadableEntry(_, let reason) = $0 { reason } else { nil } }
        #expect(reasons.count == 4)
        #expect(
            reasons[0].contains("wrong magic") && reasons[1].contains("truncated") && reasons[2].contains("checksum")
                && reasons[3].contains("another key"), "\(reasons)")
        #expect(await store.cachedResponse(for: "genuine") == makeEntry("genuine"))
    }

    @Test("an entry over maxEntryBytes is not stored and outdates the older one; a planted oversized value is refused unread")
    func sizeBound() async throws {
        let server = try await RedisServerProcess.start()
        let events = StoreEvents()
        let store = try makeStore(server.url(), maxEntryBytes: 4_096, events: events)
        await store.store(makeEntry("small"), for: "key")
        await store.store(makeEntry(String(repeating: "x", count: 5_000)), for: "key")
        #expect(await store.cachedResponse(for: "key") == nil)
        guard case .rejectedTooLarge(_, let bytes, let limit)? = events.all.first else {
            Issue.record("expected rejectedTooLarge, got \(events.all)")
            return
        }
        #expect(bytes > 5_000 && limit == 4_096)

        let admin = try RedisAdmin(server.url())
        try await admin.run(
            "SET", RedisArgument("test:etag:" + ETagStoreEvent.keyDigest(of: "huge")),
            RedisArgument(bytes: Array(repeating: 0x41, count: 100_000)))
        events.removeAll()
        #expect(await store.cachedResponse(for: "huge") == nil)
        #expect(events.failures.count == 1 && events.failures[0].contains("bulk string declares 100000 bytes"))
        await store.store(makeEntry("after"), for: "next")
        #expect(await store.cachedResponse(for: "next") == makeEntry("after"))
    }

    @Test("timeToLive: writes set it, lookups renew it; without one, entries do not expire")
    func timeToLive() async throws {
        let server = try await RedisServerProcess.start()
        let admin = try RedisAdmin(server.url())
        let redisKey = "test:etag:" + ETagStoreEvent.keyDigest(of: "key")
        let expiring = try makeStore(server.url(), timeToLive: .seconds(3_600))
        await expiring.store(makeEntry("body"), for: "key")
        let afterWrite = try await admin.pttl(redisKey)
        #expect(afterWrite > 3_500_000 && afterWrite <= 3_600_000)

        try await admin.run("PEXPIRE", RedisArgument(redisKey), RedisArgument(60_000))
        #expect(await expiring.cachedResponse(for: "key") != nil)
        #expect(try await admin.pttl(redisKey) > 3_500_000)

        let lasting = try makeStore(server.url())
        await lasting.store(makeEntry("body"), for: "key")
        #expect(try await admin.pttl(redisKey) == -1)
    }

    @Test("the URL's database is SELECTed on every connection")
    func selectDatabase() async throws {
        let server = try await RedisServerProcess.start()
        let store = try makeStore(server.url(database: 3))
        await store.store(makeEntry("in db 3"), for: "key")
        #expect(try await RedisAdmin(server.url(database: 0)).keys().isEmpty)
        #expect(try await RedisAdmin(server.url(database: 3)).keys().count == 1)
        #expect(await store.cachedResponse(for: "key") == makeEntry("in db 3"))

        let events = StoreEvents()
        let beyond = try makeStore(server.url(database: 99), events: events)
        #expect(await beyond.cachedResponse(for: "key") == nil)
        #expect(events.failures.first?.contains("refused SELECT") == true)
    }
}
