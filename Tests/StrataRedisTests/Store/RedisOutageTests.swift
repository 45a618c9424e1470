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

@Suite("RedisETagStore never fails a request: Redis down, killed, paused or not Redis", .needsRedisServer)
struct RedisOutageTests {
    @Test("Redis down: requests succeed through the network; the first lookup fails, later ones skip Redis")
    func down() async throws {
        let upstream = try UpstreamResource(bodyBytes: 1_000)
        let refusing = try RefusingPort()
        let events = StoreEvents()
        let store = try makeStore(URL(string: "redis://127.0.0.1:\(refusing.port)")!, events: events)
        let transport = ETagTransport(inner: URLSessionTransport(requestTimeout: .seconds(10)), store: store)

        for _ in 0..<3 {
            let response = try await transport.send(URLRequest(url: upstream.url))
            #expect(response.statusCode == 200 && response.source == .network && response.body.count == 1_000)
        }
        #expect(upstream.counts.full == 3)
        guard case .failed(.lookup, let reason)? = events.all.first else {
            Issue.record("expected a failed lookup first, got \(events.all)")
            return
        }
        #expect(reason.contains("cannot connect to Redis at 127.0.0.1:\(refusing.port)/0"))
        #expect(events.all.dropFirst().allSatisfy { if case .skipped = $0 { true } else { false } })
        #expect(events.all.count == 6) // three lookups and three writes, none of them reaching Redis
    }

    @Test("Redis killed mid-run and restarted: every request succeeds, and once Redis is back the fleet shares again")
    func killedAndRestarted() async throws {
        let server = try await RedisServerProcess.start()
        let upstream = try UpstreamResource(bodyBytes: 10_000)
        let time = TestClock()
        let events = StoreEvents()
        let store = try makeStore(server.url(), time: time, events: events)
        let transport = ETagTransport(inner: URLSessionTransport(requestTimeout: .seconds(10)), store: store)
        func get() async throws -> HTTPResponse.Source {
            let response = try await transport.send(URLRequest(url: upstream.url))
            #expect(response.statusCode == 200 && response.body.count == 10_000)
            return response.source
        }

        #expect(try await get() == .network)
        #expect(try await get() == .revalidated)
        await server.kill()
        #expect(try await get() == .network)
        #expect(try await get() == .network)
        try await server.restart()
        #expect(try await get() == .network) // still inside the delay: Redis is not asked yet
        time.advance(by: .milliseconds(100))
        #expect(try await get() == .network) // the probe finds the restarted, empty Redis and stores
        #expect(try await get() == .revalidated)

        #expect(events.failures.count == 1 && events.failures[0].contains("cannot connect"), "\(events.all)")
        #expect(events.all.contains(.recovered(missedOperations: 6)), "\(events.all)")
        #expect(upstream.counts.full == 5 && upstream.counts.notModified == 2)
    }

    @Test("connections the server closed while idle are replaced without a miss")
    func staleConnections() async throws {
        let server = try await RedisServerProcess.start()
        let events = StoreEvents()
        let store = try makeStore(server.url(), events: events)
        await store.store(makeEntry("kept"), for: "key")
        try await RedisAdmin(server.url()).run("CLIENT", "KILL", "TYPE", "normal")
        #expect(await store.cachedResponse(for: "key") == makeEntry("kept"))
        #expect(events.all.isEmpty)
    }

    @Test("Redis paused (CLIENT PAUSE): a lookup gives up at the command timeout and is a miss")
    func paused() async throws {
        let server = try await RedisServerProcess.start()
        let events = StoreEvents()
        let store = try makeStore(server.url(), commandTimeout: .milliseconds(200), events: events)
        await store.store(makeEntry("body"), for: "key")
        try await RedisAdmin(server.url()).run("CLIENT", "PAUSE", RedisArgument(Int(600_000)), "ALL")
        #expect(await store.cachedResponse(for: "key") == nil)
        #expect(events.failures.first?.contains("did not answer GET within the command timeout") == true, "\(events.all)")
    }

    @Test("a server that is not Redis: its reply is refused and the lookup is a miss")
    func notRedis() async throws {
        let http = try LoopbackHTTPServer(greeting: Data("HTTP/1.1 400 Bad Request\r\n\r\n".utf8))
        let events = StoreEvents()
        let store = try makeStore(URL(string: "redis://127.0.0.1:\(http.port)")!, events: events)
        #expect(await store.cachedResponse(for: "key") == nil)
        #expect(events.failures.first?.contains("unusable reply (a reply starts with byte 0x48") == true, "\(events.all)")
    }
}
