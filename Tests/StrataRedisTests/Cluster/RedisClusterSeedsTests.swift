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

@Suite("RedisETagStore(cluster:): seeds, clusters that cannot be reached, and the fleet scenario")
struct RedisClusterSeedsTests {
    @Test("seeds that cannot work are typed errors at creation, with passwords redacted")
    func invalidSeeds() {
        #expect(throws: RedisETagStoreError.self) { try RedisETagStore(cluster: []) }
        #expect { try RedisETagStore(cluster: [URL(string: "redis://127.0.0.1:7000/2")!]) } throws: { error in
            "\(error)".contains("database 0 only")
        }
        #expect { try RedisETagStore(cluster: [URL(string: "redis://:s3cret@a:7000")!, URL(string: "redis://:other@b:7000")!]) } throws: {
            error in "\(error)".contains("same user and password") && !"\(error)".contains("s3cret") && !"\(error)".contains("other@")
        }
        #expect { try RedisETagStore(cluster: [URL(string: "rediss://a:7000")!, URL(string: "redis://b:7000")!]) } throws: { error in
            "\(error)".contains("every seed must use the scheme of rediss://a:7000")
        }
        #expect { try RedisETagStore(cluster: [URL(string: "redis://a:7000")!], tls: RedisTLS()) } throws: { error in
            "\(error)".contains("TLS settings were given with a redis:// URL")
        }
        #expect(throws: RedisETagStoreError.self) {
            try RedisETagStore(cluster: (0...RedisClusterClient.maxSeeds).map { URL(string: "redis://h\($0):7000")! })
        }
    }

    @Test("no seed answers: the lookup is a miss, reported once, and then Redis is left alone like one server that is down")
    func unreachable() async throws {
        let refusing = try RefusingPort()
        let events = StoreEvents()
        let store = try makeClusterStore([URL(string: "redis://127.0.0.1:\(refusing.port)")!], events: events)
        #expect(await store.cachedResponse(for: "key") == nil)
        #expect(await store.cachedResponse(for: "key") == nil)
        #expect(events.failures.count == 1 && events.failures[0].contains("none of the 1 Redis Cluster nodes"), "\(events.all)")
        #expect(events.all.last.map { if case .skipped = $0 { true } else { false } } == true, "\(events.all)")
    }

    @Test("a server not in cluster mode: lookups are misses that say so", .needsRedisServer)
    func notACluster() async throws {
        let server = try await RedisServerProcess.start()
        let events = StoreEvents()
        let store = try makeClusterStore([server.url()], events: events)
        #expect(await store.cachedResponse(for: "key") == nil)
        #expect(events.failures.first?.contains("not in cluster mode") == true, "\(events.all)")
    }

    @Test("a dead seed listed first: the store learns the cluster from the next one", .needsRedisCluster)
    func deadSeedFirst() async throws {
        let cluster = try await RedisClusterProcess.start()
        let refusing = try RefusingPort()
        let events = StoreEvents()
        let store = try makeClusterStore([URL(string: "redis://127.0.0.1:\(refusing.port)")!, cluster.nodes[1].url()], events: events)
        await store.store(makeEntry("found"), for: "key")
        #expect(await store.cachedResponse(for: "key") == makeEntry("found"))
        #expect(events.all.isEmpty, "\(events.all)")
    }

    @Test(
        "the fleet article's scenario on a cluster: three instances, one changed resource, one full download and two 304s",
        .needsRedisCluster)
    func fleetScenario() async throws {
        let cluster = try await RedisClusterProcess.start()
        let upstream = try UpstreamResource(bodyBytes: 10_000)
        let fleet = try (0..<3).map { _ in
            ETagTransport(inner: URLSessionTransport(requestTimeout: .seconds(10)), store: try makeClusterStore(cluster.seedURLs))
        }
        for member in fleet { _ = try await member.send(URLRequest(url: upstream.url)) }
        upstream.change()
        upstream.resetCounts()
        for member in fleet {
            let response = try await member.send(URLRequest(url: upstream.url))
            #expect(response.statusCode == 200 && response.body.first == UInt8(ascii: "c"))
        }
        #expect(upstream.counts.full == 1 && upstream.counts.notModified == 2 && upstream.counts.bodyBytes == 10_000)
    }
}
