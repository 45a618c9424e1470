#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import RedisTestServer
import Strata
@testable import StrataRedis
import StrataTesting
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
        // The entry is there (its key's digest, its URL): the check above looked at real data.
        #expect(stored.contains("\"keyDigest\"") && stored.contains(":\(upstream.server.port)"))

        let refused = try makeStore(server.url(password: "wrong-\(password)"), events: events)
        _ = await refused.cachedResponse(for: "key")
        #expect(!events.all.isEmpty && !events.all.map(\.description).joined().contains(password))
    }

    @Test("no URL userinfo, query-string secret or secret Vary header value reaches Redis, and the entry still serves a 304")
    func noURLOrVarySecrets() async throws {
        let server = try await RedisServerProcess.start()
        let store = try makeStore(server.url())
        let url = URL(string: "https://ghp_US3RT0KEN:pa55w0rd@api.example/r?access_token=AT-61c2f7&sig=SG-d40a9e&page=2")!
        let origin = ClosureTransport { request in
            guard request.headers["If-None-Match"] == nil else {
                return HTTPResponse(statusCode: 304, headers: ["ETag": "\"r1\""], url: url)
            }
            // The response URL keeps the userinfo, as both transports' do.
            return HTTPResponse(statusCode: 200, headers: ["ETag": "\"r1\"", "Vary": "X-API-Key"], body: Data("r".utf8), url: url)
        }
        let transport = ETagTransport(inner: origin, store: store)
        var request = URLRequest(url: url)
        request.setValue("APIKEY-2b9e71", forHTTPHeaderField: "X-API-Key")
        #expect(try await transport.send(request).source == .network)
        #expect(try await transport.send(request).source == .revalidated)

        let admin = try RedisAdmin(server.url())
        let keys = try await admin.keys()
        #expect(keys.count == 2, "the primary and the variant entry")
        for key in keys {
            let value = try #require(try await admin.value(key))
            for secret in ["ghp_US3RT0KEN", "pa55w0rd", "AT-61c2f7", "SG-d40a9e", "APIKEY-2b9e71"] {
                #expect(Data(value).range(of: Data(secret.utf8)) == nil, "\(key) holds \(secret)")
            }
            #expect(
                Data(value).range(of: Data("api.example".utf8)) != nil && Data(value).range(of: Data("page=2".utf8)) != nil,
                "the URL is stored, redacted")
        }
    }
}
