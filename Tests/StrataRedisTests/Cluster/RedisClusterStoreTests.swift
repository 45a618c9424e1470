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
            + (0..<100).map({ "test:etag:\(ETagStoreEvent.keyDigest(of: "https://api.example/\($0)"))" })
        {
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

    @Test(
        "ASK: while a slot migrates, a new key is written on the importing node after ASKING, and lookups ask the old owner first (ASK changes no map)"
    )
    func ask() async throws {
        let cluster = try await RedisClusterProcess.start()
        let admin = try await ClusterAdmin(cluster)
        let events = StoreEvents()
        let store = try makeClusterStore(cluster.seedURLs, events: events)
        let keys = try await storeKeys(onNode: 0, count: 1, admin: admin)
        let slot = try ClusterAdmin.slot(of: keys[0])
        #expect(await store.cachedResponse(for: keys[0]) == nil) // learns the map while node 0 owns the slot

        try await admin.beginMigration(slot, from: 0, to: 1)
        try await admin.nodes[0].run("CONFIG", "RESETSTAT")
        await store.store(makeEntry("asked"), for: keys[0])
        #expect(try await admin.keyCount(slot, on: 1) == 1)
        #expect(try await admin.keyCount(slot, on: 0) == 0)
        #expect(await store.cachedResponse(for: keys[0]) == makeEntry("asked"))
        #expect(await store.cachedResponse(for: keys[0]) == makeEntry("asked"))
        #expect(try await redirects("ASK", sentBy: admin.nodes[0]) == 3) // the SET and both GETs
        #expect(try await redirects("MOVED", sentBy: admin.nodes[0]) == 0)
        try await admin.finishMigration(slot, to: 1)
        #expect(await store.cachedResponse(for: keys[0]) == makeEntry("asked"))
        #expect(events.all.isEmpty, "\(events.all)")
    }

    @Test(
        "a half-configured migration that sends a command back and forth stops after 5 redirects: a miss with a typed reason, never a hang")
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

    @Test("a killed primary: its slots are misses, the others still hit, no request fails; restarted, its slots are served again")
    func killedNode() async throws {
        let cluster = try await RedisClusterProcess.start()
        let admin = try await ClusterAdmin(cluster)
        let owners = try await admin.owners()
        let time = TestClock()
        let events = StoreEvents()
        let store = try makeClusterStore(cluster.seedURLs, time: time, events: events)
        let keys = (0..<30).map { "https://api.example/items/\($0)" }
        let onDeadNode = try keys.filter { try owners[ClusterAdmin.slot(of: $0)] == 2 }
        for key in keys { await store.store(makeEntry(key), for: key) }

        await cluster.nodes[2].kill()
        for key in keys {
            #expect(await store.cachedResponse(for: key) == (onDeadNode.contains(key) ? nil : makeEntry(key)), "\(key)")
        }
        #expect(events.failures.count == 1 && events.failures[0].contains("cannot connect"), "\(events.all)")
        let skipped = events.all.filter { if case .skipped(.lookup, _) = $0 { true } else { false } }
        #expect(skipped.count == onDeadNode.count - 1, "\(events.all)")

        let upstream = try UpstreamResource(bodyBytes: 1_000)
        let transport = ETagTransport(inner: URLSessionTransport(requestTimeout: .seconds(10)), store: store)
        for _ in 0..<5 {
            let response = try await transport.send(URLRequest(url: upstream.url))
            #expect(response.statusCode == 200 && response.body.count == 1_000)
        }

        try await cluster.nodes[2].restart()
        try await cluster.waitUntilHealthy()
        time.advance(by: .milliseconds(100))
        events.removeAll()
        for key in onDeadNode { await store.store(makeEntry("again"), for: key) }
        for key in onDeadNode { #expect(await store.cachedResponse(for: key) == makeEntry("again")) }
        #expect(events.all.contains { if case .recovered = $0 { true } else { false } }, "\(events.all)")
        #expect(events.failures.isEmpty, "\(events.all)")
    }

    @Test("slots migrate while 3 store instances make 1,000 requests: none fails, and every one is answered from the shared entries")
    func migrationUnderLoad() async throws {
        let cluster = try await RedisClusterProcess.start()
        let admin = try await ClusterAdmin(cluster)
        let server = try LoopbackHTTPServer()
        let counts = LockedValue((full: 0, notModified: 0))
        let paths = (0..<20).map { "/resources/\($0)" }
        for path in paths {
            server.route(path, method: "GET") { request in
                counts.withLock { counts in
                    if request.header("If-None-Match") == "\"v1\"" {
                        counts.notModified += 1
                        return .init(status: 304, headers: [("ETag", "\"v1\"")])
                    }
                    counts.full += 1
                    return .init(status: 200, headers: [("ETag", "\"v1\"")], text: "body of \(path)")
                }
            }
        }
        let events = StoreEvents()
        let instances = try (0..<3).map { _ in
            ETagTransport(
                inner: URLSessionTransport(requestTimeout: .seconds(10)),
                store: try makeClusterStore(cluster.seedURLs, events: events))
        }
        for path in paths { _ = try await instances[0].send(URLRequest(url: server.url(path))) }
        counts.withLock { $0 = (0, 0) }

        // Every slot of node 0 that holds an entry moves to node 1 during the run.
        let moving = Array(Set(try await admin.nodes[0].keys().map { RedisHashSlot.of(Array($0.utf8)) })).sorted()
        #expect(!moving.isEmpty)
        try await admin.nodes[0].run("CONFIG", "RESETSTAT")
        let progress = RequestProgress()
        let outcomes = LockedValue((ok: 0, failed: [String]()))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, instance) in instances.enumerated() {
                group.addTask {
                    for request in 0..<(index == 0 ? 334 : 333) {
                        let url = server.url(paths[(index * 7 + request) % paths.count])
                        do {
                            let response = try await instance.send(URLRequest(url: url))
                            let ok =
                                response.statusCode == 200 && response.source == .revalidated
                                && response.body == Data("body of \(url.path)".utf8)
                            outcomes.withLock {
                                ok ? ($0.ok += 1) : $0.failed.append("\(url.path): \(response.statusCode) \(response.source)")
                            }
                        } catch {
                            outcomes.withLock { $0.failed.append("\(url.path): \(error)") }
                        }
                        progress.advance()
                    }
                }
            }
            group.addTask {
                for slot in moving {
                    await progress.wait(forAtLeast: progress.done + 20)
                    try await admin.beginMigration(slot, from: 0, to: 1)
                    await progress.wait(forAtLeast: progress.done + 20)
                    try await admin.moveKeys(slot, from: 0, to: 1)
                    await progress.wait(forAtLeast: progress.done + 20)
                    try await admin.finishMigration(slot, to: 1)
                }
            }
            defer { progress.finish() }
            for _ in 0..<3 { try await group.next() }
            progress.finish()
            try await group.waitForAll()
        }

        #expect(outcomes.withLock { $0.ok } == 1_000)
        #expect(outcomes.withLock { $0.failed }.isEmpty, "\(outcomes.withLock { $0.failed.prefix(5) })")
        #expect(counts.withLock { $0.full } == 0 && counts.withLock { $0.notModified } == 1_000)
        #expect(events.failures.isEmpty, "\(events.all.prefix(5))")
        let afterwards = try await admin.owners()
        #expect(moving.allSatisfy { afterwards[$0] == 1 })
        let asked = try await redirects("ASK", sentBy: admin.nodes[0])
        let moved = try await redirects("MOVED", sentBy: admin.nodes[0])
        #expect(asked + moved > 0, "the requests never met the migration")
    }
}
