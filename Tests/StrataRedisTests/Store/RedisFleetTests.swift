#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import RedisTestServer
import Strata
import StrataRedis
import Testing

@Suite("A fleet of ETagTransports sharing one RedisETagStore", .needsRedisServer)
struct RedisFleetTests {
    /// One service instance: its own transport and its own store object, on the shared Redis.
    private func instance(_ store: any ETagStoreProtocol) -> ETagTransport {
        ETagTransport(inner: URLSessionTransport(requestTimeout: .seconds(10)), store: store)
    }

    @Test("two instances share one store: the second one's first GET is a 304 served from Redis")
    func twoInstances() async throws {
        let server = try await RedisServerProcess.start()
        let upstream = try UpstreamResource(bodyBytes: 10_000)
        let first = instance(try makeStore(server.url()))
        let second = instance(try makeStore(server.url()))

        let downloaded = try await first.send(URLRequest(url: upstream.url))
        let revalidated = try await second.send(URLRequest(url: upstream.url))
        #expect(downloaded.source == .network && revalidated.source == .revalidated)
        #expect(revalidated.statusCode == 200 && revalidated.body == downloaded.body)
        #expect(upstream.counts.full == 1 && upstream.counts.notModified == 1)
    }

    /// The fleet article's scenario: three instances, one upstream, one resource that changes.
    /// Returns the upstream's counts for the round after the change.
    private func fleetRound(stores: [any ETagStoreProtocol], upstream: UpstreamResource) async throws
        -> (full: Int, notModified: Int, bodyBytes: Int)
    {
        let fleet = stores.map(instance)
        for member in fleet { _ = try await member.send(URLRequest(url: upstream.url)) }
        upstream.change()
        upstream.resetCounts()
        for member in fleet {
            let response = try await member.send(URLRequest(url: upstream.url))
            #expect(response.statusCode == 200 && response.body.first == UInt8(ascii: "c"))
        }
        return upstream.counts
    }

    @Test("three instances, one changed resource: with Redis one full download and two 304s; with per-instance stores three downloads")
    func fleetScenario() async throws {
        let server = try await RedisServerProcess.start()
        let shared = try await fleetRound(
            stores: (0..<3).map { _ in try makeStore(server.url()) },
            upstream: try UpstreamResource(bodyBytes: 10_000))
        #expect(shared.full == 1 && shared.notModified == 2 && shared.bodyBytes == 10_000)

        let separate = try await fleetRound(
            stores: (0..<3).map { _ in InMemoryETagStore() },
            upstream: try UpstreamResource(bodyBytes: 10_000))
        #expect(separate.full == 3 && separate.notModified == 0 && separate.bodyBytes == 30_000)
    }
}
