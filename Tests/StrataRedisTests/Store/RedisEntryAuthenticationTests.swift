#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import RedisTestServer
@testable import Strata
@testable import StrataRedis
import StrataTesting
import Testing

/// Issue 39, finding 5: with `entryAuthenticationKeys`, whoever can write the keyspace cannot
/// make an instance serve what it wrote.
@Suite("RedisETagStore with entry authentication keys serves only what the fleet signed", .needsRedisServer)
struct RedisEntryAuthenticationTests {
    private static let fleetKey = try! RedisEntryAuthenticationKey(Array(repeating: 0x5A, count: 32))
    private static let otherKey = try! RedisEntryAuthenticationKey(Array(repeating: 0xA5, count: 32))

    private static func redisKey(_ storeKey: String, namespace: String = "test:etag") -> String {
        namespace + ":" + ETagStoreEvent.keyDigest(of: storeKey)
    }

    private static func failures(_ events: StoreEvents) -> [RedisETagStoreEvent.AuthenticationFailure] {
        events.all.compactMap { if case .unauthenticatedEntry(_, let failure) = $0 { failure } else { nil } }
    }

    @Test("an unsigned entry with a long max-age, planted for a URL anyone can hash, is not served: the request goes upstream")
    func plantedFreshEntryIsNotServed() async throws {
        let server = try await RedisServerProcess.start()
        let upstream = try UpstreamResource(bodyBytes: 100)
        // The attacker: a store on the same keyspace without the key, fed a forged response.
        let forger = ETagTransport(
            inner: ClosureTransport { _ in
                HTTPResponse(
                    statusCode: 200, headers: ["ETag": "\"forged\"", "Cache-Control": "public, max-age=31536000"],
                    body: Data("forged".utf8), url: upstream.url)
            },
            store: try makeStore(server.url()))
        _ = try await forger.send(HTTPRequest(url: upstream.url))
        let events = StoreEvents()
        let instance = ETagTransport(
            inner: URLSessionTransport(requestTimeout: .seconds(10)),
            store: try makeStore(server.url(), events: events, entryAuthenticationKeys: [Self.fleetKey]))

        let response = try await instance.send(HTTPRequest(url: upstream.url))

        #expect(response.source == .network && response.body != Data("forged".utf8))
        #expect(upstream.counts.full == 1)
        #expect(Self.failures(events) == [.unsigned])
        // The download replaced the planted value with a signed entry, which the fleet uses.
        let keys = try await RedisAdmin(server.url()).keys()
        let redisKey = try #require(keys.first)
        let value = try #require(try await RedisAdmin(server.url()).value(redisKey))
        #expect(keys.count == 1 && Array(value.prefix(8)) == Array("STRATAES".utf8))
        let sibling = ETagTransport(
            inner: URLSessionTransport(requestTimeout: .seconds(10)),
            store: try makeStore(server.url(), entryAuthenticationKeys: [Self.fleetKey]))
        #expect(try await sibling.send(HTTPRequest(url: upstream.url)).source == .revalidated)
        #expect(upstream.counts.full == 1 && upstream.counts.notModified == 1)
    }

    @Test("an unsigned entry planted over RESP is a miss with an unauthenticated-entry event, never served")
    func plantedOverRESP() async throws {
        let server = try await RedisServerProcess.start()
        let events = StoreEvents()
        let store = try makeStore(server.url(), events: events, entryAuthenticationKeys: [Self.fleetKey])
        // Exactly what an unkeyed store writes: the public entry format with its integrity tag.
        let planted = try ETagEntryFileFormat.encode(key: "key", entry: makeEntry("planted"), authenticationKey: [])
        try await RedisAdmin(server.url()).run("SET", RedisArgument(Self.redisKey("key")), RedisArgument(planted))

        #expect(await store.cachedResponse(for: "key") == nil)
        #expect(Self.failures(events) == [.unsigned])
        #expect(events.all.allSatisfy { $0.logLevel == .warning && $0.name == "redis-etag-store.unauthenticated-entry" })
    }

    @Test(
        "an unsigned or altered value is deleted by the lookup that refuses it, so renewing TTLs never keeps one; a value signed with a key the store lacks is left for the instances that hold it"
    )
    func refusedValuesAreDeleted() async throws {
        let server = try await RedisServerProcess.start()
        let events = StoreEvents()
        // With a TTL, each lookup pipelines a PEXPIRE that renews (or, here, sets) the value's expiry.
        let store = try makeStore(
            server.url(), timeToLive: .seconds(3_600), events: events, entryAuthenticationKeys: [Self.fleetKey])
        let admin = try RedisAdmin(server.url())
        let planted = try ETagEntryFileFormat.encode(key: "planted", entry: makeEntry("planted"), authenticationKey: [])
        try await admin.run("SET", RedisArgument(Self.redisKey("planted")), RedisArgument(planted))
        await store.store(makeEntry("genuine"), for: "tampered")
        var tampered = Data(try #require(try await admin.value(Self.redisKey("tampered"))))
        tampered[tampered.count - 1] ^= 0x01
        try await admin.run("SET", RedisArgument(Self.redisKey("tampered")), RedisArgument(tampered))
        let rotated = try makeStore(server.url(), entryAuthenticationKeys: [Self.otherKey])
        await rotated.store(makeEntry("rotated"), for: "rotated")

        for key in ["planted", "tampered", "rotated"] { #expect(await store.cachedResponse(for: key) == nil) }

        #expect(Self.failures(events) == [.unsigned, .tagMismatch, .unknownKey(id: Self.otherKey.id)])
        #expect(events.all.count == 3, "the DELs succeeded: \(events.all)")
        #expect(try await admin.keys() == [Self.redisKey("rotated")])
    }

    @Test("a signed entry changed in its body, its freshness, or its length, or copied to another key or namespace, is not served")
    func tamperedEntries() async throws {
        let server = try await RedisServerProcess.start()
        let events = StoreEvents()
        let store = try makeStore(server.url(), events: events, entryAuthenticationKeys: [Self.fleetKey])
        let neighbour = try makeStore(
            server.url(), namespace: "test:etag2", events: events, entryAuthenticationKeys: [Self.fleetKey])
        let admin = try RedisAdmin(server.url())
        let genuineEntry = makeEntry("genuine")
        await store.store(genuineEntry, for: "genuine")
        let genuine = Data(try #require(try await admin.value(Self.redisKey("genuine"))))
        let header = RedisSignedEntryFormat.headerByteCount

        var body = genuine
        body[body.count - 1] ^= 0x01
        // Fresher: the attacker rewrites the entry's metadata and recomputes its (public) integrity
        // tag, keeping the signature, which only the key can redo.
        var fresher = genuineEntry
        fresher.headers["Cache-Control"] = "public, max-age=31536000"
        let inner = try ETagEntryFileFormat.encode(key: "genuine", entry: fresher, authenticationKey: [])
        let freshness = genuine.prefix(header) + inner
        let plants: [(String, String, Data)] = [
            ("body", Self.redisKey("genuine"), body),
            ("freshness", Self.redisKey("genuine"), freshness),
            ("truncated", Self.redisKey("genuine"), genuine.prefix(header - 1)),
            ("moved to another URL's key", Self.redisKey("elsewhere"), genuine),
            ("moved to another namespace", Self.redisKey("genuine", namespace: "test:etag2"), genuine),
        ]
        for (name, redisKey, value) in plants {
            events.removeAll()
            try await admin.run("SET", RedisArgument(redisKey), RedisArgument(value))
            let lookup = redisKey.hasPrefix("test:etag2:") ? neighbour : store
            let read = await lookup.cachedResponse(for: redisKey == Self.redisKey("elsewhere") ? "elsewhere" : "genuine")
            #expect(read == nil, "\(name)")
            #expect(Self.failures(events) == [.tagMismatch], "\(name): \(events.all)")
        }
        await store.store(genuineEntry, for: "genuine")
        #expect(await store.cachedResponse(for: "genuine") == genuineEntry)
    }

    @Test("an entry signed with a key the store does not hold is not served, and the event names that key's id, not the key")
    func wrongKey() async throws {
        let server = try await RedisServerProcess.start()
        let events = StoreEvents()
        let store = try makeStore(server.url(), events: events, entryAuthenticationKeys: [Self.fleetKey])
        let outsider = try makeStore(server.url(), entryAuthenticationKeys: [Self.otherKey])
        await outsider.store(makeEntry("outsider"), for: "key")

        #expect(await store.cachedResponse(for: "key") == nil)
        #expect(Self.failures(events) == [.unknownKey(id: Self.otherKey.id)])
        #expect(
            events.all.map { $0.message(redactedBy: Redaction()) } == [
                "redis-etag-store entry \(ETagStoreEvent.keyDigest(of: "key")) not authenticated, treated as a miss: "
                    + "signed with key \(Self.otherKey.id), which this store does not hold"
            ])
    }

    @Test("rotation: the new key signs, the old one still verifies, and an instance without the new key misses its entries")
    func rotation() async throws {
        let server = try await RedisServerProcess.start()
        let old = Self.fleetKey
        let new = Self.otherKey
        let admin = try RedisAdmin(server.url())
        let before = try makeStore(server.url(), entryAuthenticationKeys: [old])
        await before.store(makeEntry("signed with old"), for: "old")

        let rotated = try makeStore(server.url(), entryAuthenticationKeys: [new, old])
        #expect(await rotated.cachedResponse(for: "old") == makeEntry("signed with old"))
        await rotated.store(makeEntry("signed with new"), for: "new")
        let value = try #require(try await admin.value(Self.redisKey("new")))
        #expect(Array(value[9..<17]) == new.identifier && new.identifier != old.identifier)

        // Step one of a rollout (sign with old, accept new) and the end (new alone) read it.
        #expect(try await makeStore(server.url(), entryAuthenticationKeys: [old, new]).cachedResponse(for: "new") != nil)
        #expect(try await makeStore(server.url(), entryAuthenticationKeys: [new]).cachedResponse(for: "new") != nil)
        let events = StoreEvents()
        let lagging = try makeStore(server.url(), events: events, entryAuthenticationKeys: [old])
        #expect(await lagging.cachedResponse(for: "new") == nil)
        #expect(Self.failures(events) == [.unknownKey(id: new.id)])
    }

    @Test("turning authentication on: entries written without a key are misses once, then overwritten signed")
    func enablingAuthentication() async throws {
        let server = try await RedisServerProcess.start()
        let unkeyed = try makeStore(server.url())
        await unkeyed.store(makeEntry("before"), for: "key")
        let events = StoreEvents()
        let keyed = try makeStore(server.url(), events: events, entryAuthenticationKeys: [Self.fleetKey])

        #expect(await keyed.cachedResponse(for: "key") == nil)
        await keyed.store(makeEntry("after"), for: "key")
        #expect(await keyed.cachedResponse(for: "key") == makeEntry("after"))
        #expect(Self.failures(events) == [.unsigned])
        // An instance not yet configured reads a signed value as another format: a miss as well.
        #expect(await unkeyed.cachedResponse(for: "key") == nil)
    }

    @Test("the key reaches no Redis value, command reply or event; only its id does")
    func keyNeverStored() async throws {
        let server = try await RedisServerProcess.start()
        let secret = Array("entry-key-SECRET-0123456789abcdef".utf8)
        let key = try RedisEntryAuthenticationKey(secret)
        let events = StoreEvents()
        let store = try makeStore(server.url(), events: events, entryAuthenticationKeys: [key])
        await store.store(makeEntry("body"), for: "key")
        try await RedisAdmin(server.url()).run("SET", RedisArgument(Self.redisKey("planted")), "planted")
        _ = await store.cachedResponse(for: "planted")

        let value = Data(try #require(try await RedisAdmin(server.url()).value(Self.redisKey("key"))))
        #expect(value.range(of: Data(secret)) == nil)
        #expect(!events.all.isEmpty)
        #expect(!events.all.map { "\($0) \($0.message(redactedBy: Redaction()))" }.joined().contains("SECRET"))
    }
}
