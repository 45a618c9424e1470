import Foundation
import RedisTestServer
import Strata
import StrataPinning
@testable import StrataRedis
import StrataTesting
import Testing
import TestSupport

/// The pinning test PKI, read from Tests/Fixtures/Pinning.
private enum PKI {
    static func text(_ name: String) throws -> String {
        try String(contentsOf: RedisServerProcess.TLS.fixtures.appendingPathComponent(name), encoding: .utf8)
    }
    /// The CA that issued `leaf-ec` and `wrong-host`.
    static func ca() throws -> TrustRoots { .certificates([try Certificate(pem: text("ca.pem"))]) }
    /// A client certificate issued by `client-ca`, which the TLS servers trust for clients.
    static func client() throws -> ClientIdentity {
        try ClientIdentity(certificateChainPEM: text("client.pem"), privateKeyPEM: text("client.key"))
    }
    static func pin(_ certificate: String) throws -> String { try Certificate(pem: text(certificate)).spkiPin }
}

/// A client with the test's timeouts, for asserting the typed error a store absorbs.
private func client(_ url: URL, tls: RedisTLS?) throws -> RedisClient {
    let endpoint = try RedisEndpoint(url: url)
    let settings = RedisConnection.Settings(
        endpoint: endpoint, limits: RESPLimits(),
        connectTimeout: TestTimeScale.scaled(.seconds(2)),
        commandTimeout: TestTimeScale.scaled(.seconds(5)),
        tls: try RedisTLS.connector(tls, for: endpoint))
    return RedisClient(settings: settings, maxConnections: 1)
}

/// The error a `PING` over `url` ends in, or nil when it was answered.
private func pingFailure(_ url: URL, tls: RedisTLS?) async throws -> RedisClientError? {
    let redis = try client(url, tls: tls)
    do throws(RedisClientError) {
        _ = try await redis.send([RedisCommand("PING")])
        return nil
    } catch {
        return error
    }
}

/// A store on `url` over TLS; `events` sees what it absorbs.
private func tlsStore(_ url: URL, tls: RedisTLS?, events: StoreEvents? = nil) throws -> ObservedStore {
    ObservedStore(
        inner: try RedisETagStore(
            url: url, namespace: "test:etag", timeToLive: nil, maxEntryBytes: 8 << 20, maxConnections: 2,
            connectTimeout: TestTimeScale.scaled(.seconds(2)), commandTimeout: TestTimeScale.scaled(.seconds(5)),
            retryDelays: (.milliseconds(100), .seconds(5)), clock: TestClock(), tls: tls), events: events)
}

@Suite("rediss://: TLS to a real redis-server with the pinning PKI", .needsRedisServer)
struct RedisTLSTests {
    static let password = "Tls-Pa55-Never-Logged"

    @Test("with the server's CA given, entries round-trip over TLS, reached by IP address or by name")
    func roundTrip() async throws {
        let server = try await RedisServerProcess.start(tls: .init())
        #expect(server.url().scheme == "rediss")
        let store = try tlsStore(server.url(), tls: RedisTLS(trustRoots: PKI.ca()))
        await store.store(makeEntry("over TLS"), for: "key")
        #expect(await store.cachedResponse(for: "key") == makeEntry("over TLS"))
        let byName = try tlsStore(URL(string: "rediss://localhost:\(server.port)")!, tls: RedisTLS(trustRoots: PKI.ca()))
        #expect(await byName.cachedResponse(for: "key") == makeEntry("over TLS"))
    }

    @Test("a certificate for another host name: untrustedServer, and the store treats Redis as unavailable (a miss, no failed request)")
    func wrongHostName() async throws {
        let server = try await RedisServerProcess.start(tls: .init(serverCertificate: "wrong-host"))
        let tls = RedisTLS(trustRoots: try PKI.ca())
        let error = try await pingFailure(server.url(), tls: tls)
        guard case .untrustedServer(let peer, let reason)? = error else {
            Issue.record("expected untrustedServer, got \(String(describing: error))")
            return
        }
        #expect(peer == "127.0.0.1:\(server.port)/0")
        #expect(reason.contains("for another name"), "\(reason)")

        let events = StoreEvents()
        let store = try tlsStore(server.url(), tls: tls, events: events)
        await store.store(makeEntry("never sent"), for: "key")
        #expect(await store.cachedResponse(for: "key") == nil)
        let failure = try #require(events.failures.first)
        #expect(failure.contains("was not trusted over TLS"), "\(failure)")
    }

    @Test("a server whose chain leads to no trusted root (the system's CAs, by default) is refused")
    func untrustedServer() async throws {
        let server = try await RedisServerProcess.start(tls: .init())
        for tls in [nil, RedisTLS()] {
            let error = try await pingFailure(server.url(), tls: tls)
            guard case .untrustedServer(_, let reason)? = error else {
                Issue.record("expected untrustedServer, got \(String(describing: error))")
                continue
            }
            #expect(reason.contains("does not lead to a trusted root"), "\(reason)")
        }
    }

    @Test("a server that requires a client certificate: given, it works; not given, the connection fails and the store misses")
    func clientCertificate() async throws {
        let server = try await RedisServerProcess.start(tls: .init(requiresClientCertificate: true))
        let identified = RedisTLS(trustRoots: try PKI.ca(), clientIdentity: try PKI.client())
        #expect(try await pingFailure(server.url(), tls: identified) == nil)

        // Under TLS 1.3 the server refuses after the client's handshake has ended: its alert
        // (certificate_required) reaches the first read when it comes first, and the reset that
        // follows it reaches the first write when that comes first. Either way nothing is served.
        let anonymous = RedisTLS(trustRoots: try PKI.ca())
        switch try await pingFailure(server.url(), tls: anonymous) {
        case .tlsFailed(_, let reason)?: #expect(reason.contains("RedisTLS.clientIdentity"), "\(reason)")
        case .connectionLost?: break
        case let other: Issue.record("expected tlsFailed or connectionLost, got \(String(describing: other))")
        }
        let events = StoreEvents()
        let store = try tlsStore(server.url(), tls: anonymous, events: events)
        #expect(await store.cachedResponse(for: "key") == nil)
        #expect(!events.failures.isEmpty)
    }

    @Test("SPKI pins: the server's key pinned, it works; only another key pinned, untrustedServer listing the chain's pins")
    func pins() async throws {
        let server = try await RedisServerProcess.start(tls: .init())
        let matching = RedisTLS(
            trustRoots: try PKI.ca(),
            evaluator: try PublicKeyPinningEvaluator(pins: [PKI.pin("leaf-ec.pem")]))
        #expect(try await pingFailure(server.url(), tls: matching) == nil)

        let other = RedisTLS(
            trustRoots: try PKI.ca(),
            evaluator: try PublicKeyPinningEvaluator(pins: [PKI.pin("attacker-leaf.pem")]))
        let error = try await pingFailure(server.url(), tls: other)
        guard case .untrustedServer(_, let reason)? = error else {
            Issue.record("expected untrustedServer, got \(String(describing: error))")
            return
        }
        let served = try PKI.pin("leaf-ec.pem")
        #expect(reason.contains("pinning failure") && reason.contains(served), "\(reason)")
    }

    @Test("AUTH with an ACL user and password over TLS; a wrong password is a miss whose events never hold it")
    func authentication() async throws {
        let server = try await RedisServerProcess.start(
            configuration: ["--user", "fleet", "on", ">\(Self.password)", "~*", "+@all"], tls: .init())
        let tls = RedisTLS(trustRoots: try PKI.ca())
        let store = try tlsStore(server.url(user: "fleet", password: Self.password), tls: tls)
        await store.store(makeEntry("authenticated"), for: "key")
        #expect(await store.cachedResponse(for: "key") == makeEntry("authenticated"))

        let events = StoreEvents()
        let refused = try tlsStore(server.url(user: "fleet", password: "wrong-\(Self.password)"), tls: tls, events: events)
        #expect(await refused.cachedResponse(for: "key") == nil)
        let failure = try #require(events.failures.first)
        #expect(failure.contains("refused AUTH"), "\(failure)")
        #expect(!events.all.map(\.description).joined().contains(Self.password))
        let error = try await pingFailure(server.url(user: "fleet", password: "wrong-\(Self.password)"), tls: tls)
        #expect(error.map { !$0.description.contains(Self.password) } == true)
    }

    @Test(
        "pinned keys only (no chain check) works with the server's key pinned, and is refused at creation without a pin or with report-only pins"
    )
    func pinnedKeysOnly() async throws {
        let server = try await RedisServerProcess.start(tls: .init())
        let pinned = RedisTLS(
            trustRoots: .pinnedKeysOnly,
            evaluator: try PublicKeyPinningEvaluator(pins: [PKI.pin("leaf-ec.pem")]))
        #expect(try await pingFailure(server.url(), tls: pinned) == nil)

        let url = URL(string: "rediss://127.0.0.1:6379")!
        let refused: [(String, RedisTLS)] = [
            ("no evaluator", RedisTLS(trustRoots: .pinnedKeysOnly)),
            (
                "report-only pins",
                RedisTLS(
                    trustRoots: .pinnedKeysOnly,
                    evaluator: ReportOnlyEvaluator(
                        try PublicKeyPinningEvaluator(pins: [PKI.pin("leaf-ec.pem")])))
            ),
            (
                "report-only pins with chain checks",
                RedisTLS(
                    trustRoots: try PKI.ca(),
                    evaluator: ReportOnlyEvaluator(
                        try PublicKeyPinningEvaluator(pins: [PKI.pin("leaf-ec.pem")])))
            ),
            ("an empty group", RedisTLS(trustRoots: try PKI.ca(), evaluator: CompositeTrustEvaluator([]))),
        ]
        for (name, tls) in refused {
            #expect(throws: RedisETagStoreError.self, "\(name)") { try RedisETagStore(url: url, tls: tls) }
        }
    }

    @Test("TLS settings with a redis:// URL are refused rather than silently ignored")
    func settingsNeedRediss() throws {
        #expect(throws: RedisETagStoreError.self) {
            try RedisETagStore(url: URL(string: "redis://127.0.0.1:6379")!, tls: RedisTLS())
        }
        _ = try RedisETagStore(url: URL(string: "rediss://127.0.0.1:6379")!)
    }
}
