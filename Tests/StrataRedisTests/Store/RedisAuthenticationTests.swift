import Foundation
import RedisTestServer
import Strata
@testable import StrataRedis
import Testing

@Suite("RedisETagStore authenticates: requirepass and ACL users", .needsRedisServer)
struct RedisAuthenticationTests {
    static let password = "Pa55-w0rd-Never-Logged"

    @Test("with the default user's password in the URL the store works; a wrong one is a reported miss without the password")
    func requirePass() async throws {
        let server = try await RedisServerProcess.start(password: Self.password)
        let store = try makeStore(server.url(password: Self.password))
        await store.store(makeEntry("authenticated"), for: "key")
        #expect(await store.cachedResponse(for: "key") == makeEntry("authenticated"))

        for url in [server.url(password: "wrong-\(Self.password)"), server.url()] {
            let events = StoreEvents()
            let refused = try makeStore(url, events: events)
            #expect(await refused.cachedResponse(for: "key") == nil)
            let reason = try #require(events.failures.first)
            #expect(reason.contains("refused AUTH") || reason.contains("NOAUTH"), "\(reason)")
            #expect(!events.all.map(\.description).joined().contains(Self.password))
        }
    }

    @Test("an ACL user from the URL, with the fleet article's permissions, authenticates and is held to its keys")
    func aclUser() async throws {
        let server = try await RedisServerProcess.start(password: Self.password)
        let admin = try RedisAdmin(server.url(password: Self.password))
        try await admin.run(
            "ACL", "SETUSER", "fleet", "on", RedisArgument(">" + Self.password), "~fleet:etag:*",
            "+@read", "+@write", "+@keyspace", "+select")

        let events = StoreEvents()
        let store = try makeStore(
            server.url(user: "fleet", password: Self.password, database: 1),
            namespace: "fleet:etag", timeToLive: .seconds(60), events: events)
        await store.store(makeEntry("by fleet"), for: "key")
        #expect(await store.cachedResponse(for: "key") == makeEntry("by fleet"))
        #expect(await store.containsEntry(for: "key"))
        await store.removeAll()
        #expect(await store.cachedResponse(for: "key") == nil)
        #expect(events.all.isEmpty, "\(events.all)")

        let denied = StoreEvents()
        let outsidePattern = try makeStore(server.url(user: "fleet", password: Self.password), events: denied)
        await outsidePattern.store(makeEntry("denied"), for: "key")
        #expect(denied.failures.first?.contains("NOPERM") == true, "\(denied.all)")

        let wrongUser = StoreEvents()
        let stranger = try makeStore(server.url(user: "stranger", password: Self.password), events: wrongUser)
        #expect(await stranger.cachedResponse(for: "key") == nil)
        #expect(wrongUser.failures.first?.contains("refused AUTH (WRONGPASS)") == true, "\(wrongUser.all)")
        #expect(!wrongUser.all.map(\.description).joined().contains(Self.password))
    }
}
