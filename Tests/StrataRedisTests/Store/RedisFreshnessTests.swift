#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import RedisTestServer
@testable import Strata
import StrataRedis
import StrataTesting
import Testing

@Suite("A fleet sharing one RedisETagStore shares freshness", .needsRedisServer)
struct RedisFreshnessTests {
    private static let epoch = Date(timeIntervalSince1970: 1_700_000_000)

    /// One service instance: its own transport and store object on the shared Redis, on the
    /// fleet's (test) clock.
    private func instance(
        _ store: any ETagStoreProtocol, clock: TestClock,
        policy: ConditionalRequestPolicy = ConditionalRequestPolicy()
    ) -> ETagTransport {
        ETagTransport(
            inner: URLSessionTransport(requestTimeout: .seconds(10)), store: store, policy: policy,
            clock: clock, wallClockOrigin: Self.epoch)
    }

    @Test("three instances sharing Redis make one upstream request per freshness period, not one per instance")
    func oneRequestPerFreshnessPeriod() async throws {
        let server = try await RedisServerProcess.start()
        let upstream = try UpstreamResource(bodyBytes: 1_000, cacheControl: "max-age=60")
        let clock = TestClock()
        let fleet = try (0..<3).map { _ in instance(try makeStore(server.url()), clock: clock) }

        var sources: [HTTPResponse.Source] = []
        for member in fleet { sources.append(try await member.send(HTTPRequest(url: upstream.url)).source) }
        #expect(sources == [.network, .fresh, .fresh])
        #expect(upstream.counts.full == 1 && upstream.counts.notModified == 0)

        clock.advance(by: .seconds(30))
        for member in fleet { #expect(try await member.send(HTTPRequest(url: upstream.url)).source == .fresh) }
        #expect(upstream.counts.full == 1 && upstream.counts.notModified == 0)

        // The next period: the first instance revalidates, and its 304 is fresh for the others.
        clock.advance(by: .seconds(31))
        sources = []
        for member in fleet { sources.append(try await member.send(HTTPRequest(url: upstream.url)).source) }
        #expect(sources == [.revalidated, .fresh, .fresh])
        #expect(upstream.counts.full == 1 && upstream.counts.notModified == 1)
    }

    @Test("§3.5 in a shared Redis, a response to an authorized request is revalidated by the other instances unless it says public")
    func authorizedResponses() async throws {
        let server = try await RedisServerProcess.start()
        let clock = TestClock()
        // A named partition: the fleet shares entries although each instance holds its own token.
        let policy = ConditionalRequestPolicy(partition: .named("orders-service"))
        for (cacheControl, expected) in [("max-age=60", HTTPResponse.Source.revalidated), ("public, max-age=60", .fresh)] {
            let upstream = try UpstreamResource(bodyBytes: 100, cacheControl: cacheControl)
            let first = instance(try makeStore(server.url(), namespace: "auth:\(expected)"), clock: clock, policy: policy)
            let second = instance(try makeStore(server.url(), namespace: "auth:\(expected)"), clock: clock, policy: policy)
            _ = try await first.send(HTTPRequest(url: upstream.url, headers: ["Authorization": "Bearer instance-1"]))
            let response = try await second.send(HTTPRequest(url: upstream.url, headers: ["Authorization": "Bearer instance-2"]))
            #expect(response.source == expected, "\(cacheControl)")
        }
    }

    @Test("RedisETagStore is shared storage")
    func sharedStorage() throws {
        #expect(try RedisETagStore(url: URL(string: "redis://127.0.0.1:1")!).isSharedStorage)
    }
}
