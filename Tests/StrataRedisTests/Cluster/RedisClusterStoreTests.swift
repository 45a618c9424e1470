#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import RedisTestServer
import Strata
@testable import StrataRedis
import StrataTesting
import Testing
import TestServer

@Suite("RedisETagStore on a real three-primary Redis Cluster", .needsRedisCluster, .serialized)
struct RedisClusterStoreTests {
    @Test("slots computed here are the ones the cluster computes (CLUSTER KEYSLOT), hash tags included")
    func keyslotAgrees() async throws {
        let cluster = try await RedisClusterProcess.start()
        let admin = try RedisAdmin(cluster.nodes[0].url())
        for key in ["somekey", "{user1000}.following", "{user1000}.followers", "foo{}{bar}", "foo{{bar}}zap", "a{b}c{d}"]
            + (0..<100).map({ "test:etag:\(ETagStoreEvent.keyDigest(of: "https://api.example/\($0)"))" }) {
            let reply = try await admin.run("CLUSTER", "KEYSLOT", RedisArgument(key))
            #expect(reply == .integer(Int64(RedisHashSlot.of(Array(key.utf8)))), "\(key)")
        }
    }

    @Test("entries written through one store are read through another, which was given a single seed; every primary holds some")
    func shared() async throws {
        let cluster = try await RedisClusterProcess.start()
        let events = StoreEvents()
        let writer = try makeClusterStore(cluster.seedURLs, events: events)
        let reader = try makeClusterStore([cluster.nodes[2].url()], events: events)
        let keys = (0..<30).map { "https://api.example/items/\($0)" }
        for key in keys { await writer.store(makeEntry("body of \(key)"), for: key) }
        for key in keys {
            #expect(await reader.cachedResponse(for: key) == makeEntry("body of \(key)"))
            #expect(await reader.containsEntry(for: key))
        }
        await writer.remove(for: keys[0])
        #expect(await reader.cachedResponse(for: keys[0]) == nil)
        let admin = try await ClusterAdmin(cluster)
        for node in 0..<3 { #expect(try await admin.size(of: node) > 0, "node \(node) holds none of the 30 entries") }
        #expect(events.all.isEmpty, "\(events.all)")
    }

    /// How many `MOVED` or `ASK` replies `node` sent since its statistics were reset (Redis 7
    /// counts error replies by their first word in `INFO errorstats`; redirected commands never
    /// run, so MONITOR does not show them).
    private func redirects(_ kind: String, sentBy node: RedisAdmin) async throws -> Int {
        guard case .bulkString(let info?) = try await node.run("INFO", "errorstats") else { return -1 }
        let line = String(decoding: info, as: UTF8.self).split(whereSeparator: \.isNewline)
            .first { $0.hasPrefix("errorstat_\(kind):count=") }
        return line.flatMap { Int($0.split(separator: "=").last ?? "") } ?? 0
    }

    @Test("MOVED: after a slot moved, a lookup follows the redirect, and the map is corrected so the next goes straight to the new node")
    func moved() async throws {
        let cluster = try await RedisClusterProcess.start()
        let admin = try await ClusterAdmin(cluster)
        let events = StoreEvents()
        let store = try makeClusterStore(cluster.seedURLs, events: events)
        let key = try await storeKeys(onNode: 0, count: 1, admin: admin)[0]
        let slot = try ClusterAdmin.slot(of: key)
        await store.store(makeEntry("moved"), for: key)

        try await admin.migrate(slot, from: 0, to: 1)
        try await admin.nodes[0].run("CONFIG", "RESETSTAT")
        #expect(await store.cachedResponse(for: key) == makeEntry("moved"))
        #expect(await store.cachedResponse(for: key) == makeEntry("moved"))
        #expect(await store.containsEntry(for: key))
        #expect(try await redirects("MOVED", sentBy: admin.nodes[0]) == 1)
        #expect(try await admin.keyCount(slot, on: 1) == 1)
        #expect(events.all.isEmpty, "\(events.all)")
    }

    @Test("ASK: while a slot migrates, a new key is written on the importing node after ASKING, and lookups ask the old owner first (ASK changes no map)")
    func ask() async throws {
        let cluster = try await RedisClusterProcess.start()
        let admin = try await ClusterAdmin(cluster)
        let events = StoreEvents()
        let store = try makeClusterStore(cluster.seedURLs, events: events)
        let keys = try await storeKeys(onNode: 0, count: 1, admin: admin)
        let slot = try ClusterAdmin.slot(of: keys[0])
        #expect(await store.cachedResponse(for: keys[0]) == nil)  // learns the map while node 0 owns the slot

        try await admin.beginMigration(slot, from: 0, to: 1)
        try await admin.nodes[0].run("CONFIG", "RESETSTAT")
        await store.store(makeEntry("asked"), for: keys[0])
        #expect(try await admin.keyCount(slot, on: 1) == 1)
        #expect(try await admin.keyCount(slot, on: 0) == 0)
        #expect(await store.cachedResponse(for: keys[0]) == makeEntry("asked"))
        #expect(await store.cachedResponse(for: keys[0]) == makeEntry("asked"))
        #expect(try await redirects("ASK", sentBy: admin.nodes[0]) == 3)  // the SET and both GETs
        #expect(try await redirects("MOVED", sentBy: admin.nodes[0]) == 0)
        try await admin.finishMigration(slot, to: 1)
        #expect(await store.cachedResponse(for: keys[0]) == makeEntry("asked"))
        #expect(events.all.isEmpty, "\(events.all)")
    }

    @Test("a half-configured migration that sends a command back and forth stops after 5 redirects: a miss with a typed reason, never a hang")
    func redirectLoop() async throws {
        let cluster = try await RedisClusterProcess.start()
        let admin = try await ClusterAdmin(cluster)
        let events = StoreEvents()
        let store = try makeClusterStore(cluster.seedURLs, events: events)
        let key = try await storeKeys(onNode: 0, count: 1, admin: admin)[0]
        let slot = try ClusterAdmin.slot(of: key)
        // MIGRATING on node 0 without IMPORTING on node 1: node 0 answers ASK, node 1 ignores
        // ASKING and answers MOVED back to node 0.
        try await admin.nodes[0].run("CLUSTER", "SETSLOT", RedisArgument(slot), "MIGRATING", RedisArgument(admin.ids[1]))
        #expect(await store.cachedResponse(for: key) == nil)
        #expect(events.failures.count == 1)
        #expect(events.failures.first?.contains("redirected GET for slot \(slot) more than 5 times") == true, "\(events.all)")

        try await admin.nodes[0].run("CLUSTER", "SETSLOT", RedisArgument(slot), "STABLE")
        await store.store(makeEntry("stable"), for: key)
        #expect(await store.cachedResponse(for: key) == makeEntry("stable"))
    }

    @Test("removeAll scans every primary: no entry of the namespace is left on any node, other namespaces stay")
    func removeAll() async throws {
        let cluster = try await RedisClusterProcess.start()
        let admin = try await ClusterAdmin(cluster)
        let events = StoreEvents()
        let store = try makeClusterStore(cluster.seedURLs, events: events)
        let other = try makeClusterStore(cluster.seedURLs, namespace: "other:etag")
        let keys = (0..<600).map { "https://api.example/items/\($0)" }
        for key in keys { await store.store(makeEntry("x"), for: key) }
        for key in keys.prefix(30) { await other.store(makeEntry("kept"), for: key) }
        #expect(try await admin.size(of: 0) + admin.size(of: 1) + admin.size(of: 2) == 630)

        await store.removeAll()
        for key in keys.prefix(50) { #expect(await store.cachedResponse(for: key) == nil) }
        for key in keys.prefix(30) { #expect(await other.cachedResponse(for: key) == makeEntry("kept")) }
        for node in 0..<3 {
            let remaining = try await admin.nodes[node].keys()
            #expect(remaining.allSatisfy { $0.hasPrefix("other:etag:") }, "node \(node): \(remaining.prefix(3))")
        }
        #expect(try await admin.size(of: 0) + admin.size(of: 1) + admin.size(of: 2) == 30)
        #expect(events.all.isEmpty, "\(events.all)")
    }
}
