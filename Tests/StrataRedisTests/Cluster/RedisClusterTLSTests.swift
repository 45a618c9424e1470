import Foundation
import RedisTestServer
import Strata
import StrataPinning
@testable import StrataRedis
import StrataTesting
import Testing
import TestSupport

/// The pinning test PKI, read from Tests/Fixtures/Pinning.
private enum ClusterPKI {
    static func text(_ name: String) throws -> String {
        try String(contentsOf: RedisServerProcess.TLS.fixtures.appendingPathComponent(name), encoding: .utf8)
    }
    static func roots(_ name: String) throws -> TrustRoots { .certificates([try Certificate(pem: text(name))]) }
}

/// A cluster store on `seeds` with `tls`, the test timeouts and a hand-moved clock.
private func tlsClusterStore(_ seeds: [URL], tls: RedisTLS, events: StoreEvents) throws -> ObservedStore {
    ObservedStore(
        inner: try RedisETagStore(
            topology: .cluster(seeds: seeds), namespace: "test:etag", timeToLive: nil, maxEntryBytes: 8 << 20, maxConnections: 4,
            connectTimeout: TestTimeScale.scaled(.seconds(2)), commandTimeout: TestTimeScale.scaled(.seconds(5)),
            retryDelays: (.milliseconds(100), .seconds(5)), clock: TestClock(), tls: tls),
        events: events)
}

@Suite("RedisETagStore(cluster:) over TLS: a real three-primary cluster with tls-cluster yes", .needsRedisCluster, .serialized)
struct RedisClusterTLSTests {
    @Test(
        "rediss:// seeds: entries round-trip on every primary of a TLS-only cluster, each node checked for the CA, its address, a client certificate and a pin; a MOVED is followed over TLS"
    )
    func roundTrip() async throws {
        let cluster = try await RedisClusterProcess.start(tls: .init(requiresClientCertificate: true))
        #expect(cluster.seedURLs.allSatisfy { $0.scheme == "rediss" })
        let tls = RedisTLS(
            trustRoots: try ClusterPKI.roots("ca.pem"),
            clientIdentity: try ClientIdentity(
                certificateChainPEM: ClusterPKI.text("client.pem"), privateKeyPEM: ClusterPKI.text("client.key")),
            evaluator: try PublicKeyPinningEvaluator(pins: [Certificate(pem: ClusterPKI.text("leaf-ec.pem")).spkiPin]))
        let events = StoreEvents()
        let writer = try tlsClusterStore(cluster.seedURLs, tls: tls, events: events)
        let reader = try tlsClusterStore([cluster.nodes[2].url()], tls: tls, events: events)
        let keys = (0..<30).map { "https://api.example/items/\($0)" }
        for key in keys { await writer.store(makeEntry("body of \(key)"), for: key) }
        for key in keys { #expect(await reader.cachedResponse(for: key) == makeEntry("body of \(key)")) }
        for node in 0..<3 {
            let size = try await cluster.cli(node, "dbsize").trimmingCharacters(in: .whitespacesAndNewlines)
            #expect((Int(size) ?? 0) > 0, "node \(node) holds none of the 30 entries: \(size)")
        }

        // An empty slot of node 0 (which redis-cli gave slots 0–5460) given to node 1 behind the
        // writer's back: its next write there is redirected, to node 1's TLS port.
        let moving = try #require(
            try (100..<400).map { "https://api.example/moving/\($0)" }.first { try ClusterAdmin.slot(of: $0) <= 5460 })
        let slot = String(try ClusterAdmin.slot(of: moving))
        let target = try await cluster.cli(1, "cluster", "myid").trimmingCharacters(in: .whitespacesAndNewlines)
        for node in [1, 0, 2] {
            let answer = try await cluster.cli(node, "cluster", "setslot", slot, "node", target)
            #expect(answer.contains("OK"), "\(answer)")
        }
        await writer.store(makeEntry("moved over TLS"), for: moving)
        let count = try await cluster.cli(1, "cluster", "countkeysinslot", slot).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(count == "1")
        #expect(await reader.cachedResponse(for: moving) == makeEntry("moved over TLS"))
        #expect(events.all.isEmpty, "\(events.all)")
    }

    @Test("a TLS cluster whose certificates lead to a root the store does not trust: every operation is a miss that says so")
    func untrustedCluster() async throws {
        let cluster = try await RedisClusterProcess.start(tls: .init())
        let events = StoreEvents()
        let store = try tlsClusterStore(
            cluster.seedURLs, tls: RedisTLS(trustRoots: try ClusterPKI.roots("attacker-ca.pem")), events: events)
        await store.store(makeEntry("never sent"), for: "key")
        #expect(await store.cachedResponse(for: "key") == nil)
        let failure = try #require(events.failures.first)
        #expect(failure.contains("was not trusted over TLS"), "\(failure)")
    }
}
