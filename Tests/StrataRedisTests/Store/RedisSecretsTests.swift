#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import RedisTestServer
import Strata
@testable import StrataRedis
import Testing

@Suite("Nothing secret reaches Redis", .needsRedisServer)
struct RedisSecretsTests {
    @Test("request credentials appear in no command (MONITOR), key or value; the Redis password in no event")
    func noCredentials() async throws {
        let password = "Redis-Pa55-Not-In-Events"
        let token = "Bearer tok-7f3a9c-SECRET"
        let cookie = "session=ck-51b2e8-SECRET"
        let server = try await RedisServerProcess.start(password: password)
        let monitor = try await server.monitor()
        let upstream = try UpstreamResource(bodyBytes: 2_000)
        let events = StoreEvents()
        let store = try makeStore(server.url(password: password), events: events)
        let transport = ETagTransport(inner: URLSessionTransport(requestTimeout: .seconds(10)), store: store)

        var request = URLRequest(url: upstream.url)
        request.setValue(token, forHTTPHeaderField: "Authorization")
        request.setValue(cookie, forHTTPHeaderField: "Cookie")
        #expect(try await transport.send(request).source == .network)
        #expect(try await transport.send(request).source == .revalidated)

        let admin = try RedisAdmin(server.url(password: password))
        try await admin.run("ECHO", "end-of-test")
        let commands = await monitor.lines(through: "end-of-test")
        #expect(commands.contains { $0.contains("\"SET\"") } && commands.contains { $0.contains("\"GET\"") })
        var stored = try await admin.keys().joined()
        for key in try await admin.keys() { stored += String(decoding: try await admin.value(key) ?? [], as: UTF8.self) }
        for secret in ["tok-7f3a9c", "ck-51b2e8"] {
            #expect(!commands.joined().contains(secret), "a command carried \(secret)")
            #expect(!stored.contains(secret), "Redis holds \(secret)")
        }
        // The entry is there, keyed by URL and identity digest: the check above looked at real data.
        #expect(stored.contains("etag-v1 http:") && stored.contains("\(upstream.server.port)") && stored.contains(" id="))

        let refused = try makeStore(server.url(password: "wrong-\(password)"), events: events)
        _ = await refused.cachedResponse(for: "key")
        #expect(!events.all.isEmpty && !events.all.map(\.description).joined().contains(password))
    }
}
