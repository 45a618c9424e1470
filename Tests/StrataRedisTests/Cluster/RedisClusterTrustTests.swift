import Foundation
import Strata
@testable import StrataRedis
import StrataTesting
import Testing
import TestSupport

/// The trust rule of a cluster store, played by scripted nodes (``FakeClusterNode``): it talks to
/// the seeds and the nodes a seed's topology names, and to no node a redirect merely names.
@Suite("RedisETagStore(cluster:): which nodes it trusts with its password and entries")
struct RedisClusterTrustTests {
    static let password = "Cluster-Pa55-Never-Sent"

    /// A seed URL for `node` with the test's ACL user and password.
    /// A seed that owns every slot, answers `AUTH`, and redirects every other command to
    /// `stranger` with a `MOVED`.
    private static func seedRedirectingEverything(to stranger: FakeClusterNode) throws -> FakeClusterNode {
        let seedPort = LockedValue(0)
        let node = try FakeClusterNode { command in
            switch command.first {
            case "AUTH": .simpleString("OK")
            case "CLUSTER": FakeClusterNode.shards([(("127.0.0.1", seedPort.withLock { $0 }), [0...16383])])
            default: .error("MOVED 42 \(stranger.address)")
            }
        }
        seedPort.withLock { $0 = node.port }
        return node
    }

    private func seed(_ node: FakeClusterNode, host: String = "127.0.0.1") -> URL {
        URL(string: "redis://app:\(Self.password)@\(host):\(node.port)")!
    }

    /// The `untrustedNode` events among `events`: operation, node, reason.
    private func untrusted(_ events: StoreEvents) -> [(RedisETagStoreEvent.Operation, String, String)] {
        events.all.compactMap {
            if case .untrustedNode(let operation, let node, let reason) = $0 { (operation, node, reason) } else { nil }
        }
    }

    @Test(
        "a MOVED to a node no seed's topology names: the map is read again from the seed, the node gets no AUTH and nothing else, and the lookup is a miss"
    )
    func movedToUnknownNode() async throws {
        let stranger = try FakeClusterNode { _ in .simpleString("OK") }
        let node = try Self.seedRedirectingEverything(to: stranger)
        let events = StoreEvents()
        let store = try makeClusterStore([seed(node)], events: events)

        #expect(await store.cachedResponse(for: "https://api.example/items/1") == nil)
        await store.store(makeEntry("a whole cached body"), for: "https://api.example/items/1")

        #expect(stranger.connectionCount == 0 && stranger.commands.isEmpty, "\(stranger.commands.map { $0.first ?? "" })")
        let refused = untrusted(events)
        #expect(refused.map(\.0) == [.lookup, .store], "\(events.all)")
        #expect(refused.allSatisfy { $0.1 == stranger.address && $0.2.contains("no topology read from a seed names it") })
        // One read at the start, then one before the first redirect was judged; the second
        // came within a second of that refusal.
        #expect(node.topologyReads == 2)
        let logged = try #require(events.all.first)
        #expect(logged.name == "redis-etag-store.untrusted-node" && logged.logLevel == .warning)
        #expect(
            logged.message(redactedBy: Redaction()).hasPrefix(
                "redis-etag-store lookup not sent to untrusted cluster node \(stranger.address), answered without Redis: "))
        #expect(events.all.allSatisfy { !"\($0)".contains(Self.password) && !$0.message(redactedBy: Redaction()).contains(Self.password) })
    }

    @Test("a node that redirects every command to a stranger costs the seeds one topology read per second, not one per command")
    func refusalHoldDown() async throws {
        let stranger = try FakeClusterNode { _ in .simpleString("OK") }
        let node = try Self.seedRedirectingEverything(to: stranger)
        let time = TestClock()
        let events = StoreEvents()
        let store = try makeClusterStore([seed(node)], time: time, events: events)

        for index in 0..<20 { #expect(await store.cachedResponse(for: "https://api.example/items/\(index)") == nil) }
        #expect(node.topologyReads == 2)
        time.advance(by: RedisClusterNodes.refusalHoldDown)
        #expect(await store.cachedResponse(for: "https://api.example/items/0") == nil)
        #expect(node.topologyReads == 3)
        #expect(untrusted(events).count == 21 && stranger.connectionCount == 0, "\(events.all)")
    }

    @Test("a MOVED to a node the seed's refreshed topology names is followed: the seed vouches for it, so it gets AUTH and the command")
    func movedToNodeTheSeedNames() async throws {
        let newcomer = try FakeClusterNode { command in
            command.first == "GET" ? .bulkString(nil) : .simpleString("OK")
        }
        let seedPort = LockedValue(0)
        let resharded = LockedValue(false)
        let node = try FakeClusterNode { command in
            switch command.first {
            case "AUTH":
                return .simpleString("OK")
            case "CLUSTER":
                let owner = resharded.withLock { $0 } ? newcomer.port : seedPort.withLock { $0 }
                return FakeClusterNode.shards([(("127.0.0.1", owner), [0...16383])])
            default:
                // The slot moved to the newcomer: the topology says so from now on.
                resharded.withLock { $0 = true }
                return .error("MOVED 42 \(newcomer.address)")
            }
        }
        seedPort.withLock { $0 = node.port }
        let events = StoreEvents()
        let store = try makeClusterStore([seed(node)], events: events)

        #expect(await store.cachedResponse(for: "https://api.example/items/1") == nil)
        #expect(newcomer.commands.map { $0.first ?? "" } == ["AUTH", "GET"])
        #expect(events.all.isEmpty, "\(events.all)")
    }

    @Test(
        "an ASK to a slotless primary the topology names is followed; once the topology drops it, a later ASK there is refused and it hears nothing more"
    )
    func askOnlyNodeIsPruned() async throws {
        let importing = try FakeClusterNode { command in
            command.first == "GET" ? .bulkString(nil) : .simpleString("OK")
        }
        let stranger = try FakeClusterNode { _ in .simpleString("OK") }
        let seedPort = LockedValue(0)
        let migrating = LockedValue(true)
        let lookups = LockedValue(0)
        let node = try FakeClusterNode { command in
            let own = ("127.0.0.1", seedPort.withLock { $0 })
            switch command.first {
            case "AUTH":
                return .simpleString("OK")
            case "CLUSTER":
                let slotless = migrating.withLock { $0 } ? [(("127.0.0.1", importing.port), [ClosedRange<Int>]())] : []
                return FakeClusterNode.shards([(own, [0...16383])] + slotless)
            default:
                let lookup = lookups.withLock { count in
                    count += 1
                    return count
                }
                // The second lookup's MOVED to a stranger makes the client read the topology
                // again, which by then no longer names the importing node.
                if lookup == 2 { return .error("MOVED 42 \(stranger.address)") }
                return .error("ASK 42 \(importing.address)")
            }
        }
        seedPort.withLock { $0 = node.port }
        let events = StoreEvents()
        let store = try makeClusterStore([seed(node)], events: events)

        #expect(await store.cachedResponse(for: "https://api.example/items/1") == nil)
        #expect(importing.commands.map { $0.first ?? "" } == ["AUTH", "ASKING", "GET"])
        #expect(events.all.isEmpty, "\(events.all)")

        migrating.withLock { $0 = false }
        #expect(await store.cachedResponse(for: "https://api.example/items/2") == nil)
        #expect(await store.cachedResponse(for: "https://api.example/items/3") == nil)
        #expect(importing.commands.count == 3, "\(importing.commands.map { $0.first ?? "" })")
        #expect(stranger.connectionCount == 0)
        #expect(untrusted(events).map(\.1) == [stranger.address, importing.address], "\(events.all)")
    }

    @Test(
        "a command the slot map sent to a node a concurrent refresh dropped (resharding, failover) is routed again with the new map, not refused as untrusted"
    )
    func nodeDroppedWhileRouting() async throws {
        // The seed serves slots 0...8191; the other half moves from `leaving` to `replacement`
        // once `resharded` is set, as the seed's topology then says.
        let leaving = try FakeClusterNode { _ in .integer(1) }
        let replacement = try FakeClusterNode { command in command.first == "ASKING" ? .simpleString("OK") : .integer(1) }
        let seedPort = LockedValue(0)
        let resharded = LockedValue(false)
        let unlinkArrived = RedisTopologyRefreshTests.Door()
        let releaseUnlink = DispatchSemaphore(value: 0)
        let seed = try FakeClusterNode { command in
            switch command.first {
            case "CLUSTER":
                let other = resharded.withLock { $0 } ? replacement.port : leaving.port
                return FakeClusterNode.shards([
                    (("127.0.0.1", seedPort.withLock { $0 }), [0...8191]), (("127.0.0.1", other), [8192...16383]),
                ])
            case "UNLINK":
                // Holds the command's first part here, after it was routed with the old map and
                // before its second part goes to `leaving`.
                unlinkArrived.open()
                _ = releaseUnlink.wait(timeout: .now() + 30)
                return .integer(1)
            default:
                return .error("ASK 100 \(replacement.address)")
            }
        }
        seedPort.withLock { $0 = seed.port }
        let client = try RedisClusterClient(
            seeds: [URL(string: "redis://127.0.0.1:\(seed.port)")!], tls: nil,
            settings: (
                limits: RESPLimits(), connectTimeout: TestTimeScale.scaled(.seconds(2)),
                commandTimeout: TestTimeScale.scaled(.seconds(5))
            ),
            maxConnections: 4, retryDelays: (.milliseconds(100), .seconds(5)), clock: ErasedClock(TestClock()),
            nodeRecovered: { _ in })
        let keys = (0..<64).map { "key-\($0)" }
        let seedKey = try #require(keys.first { RedisHashSlot.of(Array($0.utf8)) < 8192 })
        let movingKey = try #require(keys.first { RedisHashSlot.of(Array($0.utf8)) >= 8192 })

        let unlink = Task {
            try await client.send([RedisCommand("UNLINK", RedisArgument(seedKey), RedisArgument(movingKey))], keylessOn: nil)
        }
        await unlinkArrived.pass()
        // Meanwhile another command's ASK to the replacement makes the client read the topology
        // again: the seed now names the replacement, and `leaving` is no longer trusted.
        resharded.withLock { $0 = true }
        #expect(try await client.send([RedisCommand("GET", RedisArgument(seedKey))], keylessOn: nil) == [.integer(1)])
        releaseUnlink.signal()

        #expect(try await unlink.value == [.integer(2)])
        #expect(leaving.connectionCount == 0)
        #expect(replacement.commands.filter { $0.first == "UNLINK" } == [["UNLINK", movingKey]])
    }

    @Test(
        "a topology that names a node outside allowedHosts: that node's slots are misses reported as untrusted, and it is never connected to"
    )
    func outsideAllowedHosts() async throws {
        // Names never match addresses: the seed is reached, and announced, as `localhost`, the
        // other node as 127.0.0.1, which the allowed hosts leave out.
        let outside = try FakeClusterNode { _ in .simpleString("OK") }
        let seedPort = LockedValue(0)
        let node = try FakeClusterNode { command in
            switch command.first {
            case "AUTH": .simpleString("OK")
            case "CLUSTER":
                FakeClusterNode.shards([
                    (("localhost", seedPort.withLock { $0 }), [0...8191]), (("127.0.0.1", outside.port), [8192...16383]),
                ])
            default: .bulkString(nil)
            }
        }
        seedPort.withLock { $0 = node.port }
        let events = StoreEvents()
        let store = ObservedStore(
            inner: try RedisETagStore(
                topology: .cluster(seeds: [seed(node, host: "localhost")], allowedHosts: ["localhost"]), namespace: "test:etag",
                timeToLive: nil, maxEntryBytes: 8 << 20, maxConnections: 4, connectTimeout: .seconds(2),
                commandTimeout: .seconds(5), retryDelays: (.milliseconds(100), .seconds(5)), clock: TestClock()),
            events: events)
        let keys = (0..<40).map { "https://api.example/items/\($0)" }
        let inside = try #require(try keys.first { try ClusterAdmin.slot(of: $0) < 8192 })
        let beyond = try #require(try keys.first { try ClusterAdmin.slot(of: $0) >= 8192 })

        #expect(await store.cachedResponse(for: inside) == nil)
        #expect(events.all.isEmpty, "\(events.all)")
        #expect(await store.cachedResponse(for: beyond) == nil)
        #expect(outside.connectionCount == 0)
        let refused = untrusted(events)
        #expect(
            refused.count == 1 && refused.first?.1 == outside.address && refused.first?.2.contains("outside allowedHosts") == true,
            "\(events.all)")
    }

    @Test("allowedHosts that cannot work, and seeds outside it, are typed errors at creation")
    func invalidAllowedHosts() {
        let seeds = [URL(string: "redis://10.0.0.7:7000")!]
        for hosts in [[], ["cache.internal:6379"], ["10.0.0.0/33"], ["*"], ["https://cache.internal"], ["a..b"]] {
            #expect(throws: RedisETagStoreError.self, "\(hosts)") { try RedisETagStore(cluster: seeds, allowedHosts: hosts) }
        }
        #expect { try RedisETagStore(cluster: seeds, allowedHosts: ["*.cache.internal"]) } throws: { error in
            "\(error)".contains("the seed redis://10.0.0.7:7000 is outside it")
        }
        #expect(throws: Never.self) { try RedisETagStore(cluster: seeds, allowedHosts: ["10.0.0.0/24"]) }
    }
}

@Suite("RedisNodeAllowList: names, wildcards, addresses and networks")
struct RedisNodeAllowListTests {
    @Test("a name matches itself in any case and with a trailing dot; a wildcard every name below its domain, not the domain")
    func names() throws {
        let list = try RedisNodeAllowList(["cache.internal", "*.redis.example"])
        #expect(list.allows("cache.internal") && list.allows("CACHE.Internal.") && !list.allows("node.cache.internal"))
        #expect(list.allows("a.redis.example") && list.allows("a.b.redis.example"))
        #expect(!list.allows("redis.example") && !list.allows("evilredis.example") && !list.allows("redis.example.evil"))
    }

    @Test("an address matches itself, a network every address in it; names never match addresses, nor addresses names")
    func networks() throws {
        let list = try RedisNodeAllowList(["10.0.0.0/8", "192.168.1.7", "fd00::/8", "localhost"])
        #expect(list.allows("10.255.3.4") && !list.allows("11.0.0.1"))
        #expect(list.allows("192.168.1.7") && !list.allows("192.168.1.8"))
        #expect(list.allows("fd12::1") && list.allows("[fd12::1]") && !list.allows("fe80::1"))
        #expect(!list.allows("127.0.0.1") && !list.allows("10.example"))
        #expect(try !RedisNodeAllowList(["127.0.0.1"]).allows("localhost"))
    }
}
