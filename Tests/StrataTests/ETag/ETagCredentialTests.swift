#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing

/// Issue 6: "the raw credential is never written anywhere", including when a response's `Vary`
/// names `Authorization` or `Cookie`, whose values would otherwise become part of variant keys
/// and stored entries.
@Suite("ETagTransport never writes a credential")
struct ETagCredentialTests {
    let url = "https://api.example.com/me"
    let token = "SUPERSECRETTOKEN123"
    let cookie = "COOKIESECRET999"

    var credentialedRequest: HTTPRequest {
        makeRequest(url, headers: ["Authorization": "Bearer \(token)", "Cookie": "session=\(cookie)"])
    }

    /// An origin that answers every GET with an ETag'd 200 varying on both credentials.
    func varyingOrigin() -> ClosureTransport {
        ClosureTransport { _ in
            makeResponse("profile", headers: ["ETag": "\"p1\"", "Vary": "Authorization, Cookie"])
        }
    }

    func containsSecret(_ text: String) -> Bool {
        text.contains(token) || text.contains(cookie)
    }

    func containsSecret(_ bytes: Data) -> Bool {
        bytes.range(of: Data(token.utf8)) != nil || bytes.range(of: Data(cookie.utf8)) != nil
    }

    @Test("Vary: Authorization, Cookie through a FileETagStore leaves no credential in any file")
    func fileStoreHoldsNoCredential() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = try FileETagStore(directory: directory.storeURL)
        let transport = ETagTransport(inner: varyingOrigin(), store: store)
        _ = try await transport.send(credentialedRequest)

        let names = try FileManager.default.contentsOfDirectory(atPath: directory.storeURL.path)
            .filter { $0 != FileETagStore.keyFileName }
        #expect(names.count == 2, "the primary and the variant entry")
        for name in names {
            let bytes = try Data(contentsOf: directory.storeURL.appendingPathComponent(name))
            #expect(!containsSecret(bytes), "\(name)")
            #expect(!containsSecret(name))
        }
    }

    @Test("Vary: Authorization, Cookie through an InMemoryETagStore: no key or entry field holds a credential")
    func memoryStoreHoldsNoCredential() async throws {
        let store = RecordingStore()
        let transport = ETagTransport(inner: varyingOrigin(), store: store)
        _ = try await transport.send(credentialedRequest)

        let written = await store.written
        #expect(written.count == 2, "the primary and the variant entry")
        for (key, entry) in written {
            #expect(!containsSecret(key), "\(key)")
            let fields = entry.headers.map { $0 } + entry.varyingRequestHeaders.map { $0 }
            #expect(!fields.contains { containsSecret($0.name) || containsSecret($0.value) })
            #expect(!containsSecret(entry.body) && !containsSecret(entry.url?.absoluteString ?? ""))
            #expect(!containsSecret(try JSONEncoder().encode(entry)))
        }
    }

    @Test("a varying identity field is stored as the same digest the identity partition uses")
    func varyingIdentityIsDigest() throws {
        let policy = ConditionalRequestPolicy(identityHeaderNames: ["AUTHORIZATION"])
        let request = makeRequest(url, headers: ["Authorization": "Bearer \(token)", "Accept": "text/plain"])
        let varying = policy.varyingHeaders(of: request, names: ["authorization", "accept"])
        #expect(varying["authorization"] == policy.identityPartition(of: request.headers))
        #expect(varying["accept"] == "text/plain", "non-identity fields keep their value")
        let key = policy.variantKey(primaryKey: "k", varyNames: ["authorization"], request: request)
        #expect(!key.contains(token))
    }

    @Test("Vary on the other secret headers (X-API-Key, X-Auth-Token, Proxy-Authorization) leaves no value in any file")
    func otherSecretHeadersNotOnDisk() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let secrets = ["X-API-Key": "APIKEY-7d1c", "X-Auth-Token": "AUTHTOKEN-93be", "Proxy-Authorization": "Basic PROXY-5a0f"]
        let origin = ClosureTransport { _ in
            makeResponse("data", headers: ["ETag": "\"d1\"", "Vary": "X-API-Key, X-Auth-Token, Proxy-Authorization"])
        }
        let transport = ETagTransport(inner: origin, store: try FileETagStore(directory: directory.storeURL))
        _ = try await transport.send(makeRequest(url, headers: secrets))

        let names = try FileManager.default.contentsOfDirectory(atPath: directory.storeURL.path)
            .filter { $0 != FileETagStore.keyFileName }
        #expect(names.count == 2, "the primary and the variant entry")
        for name in names {
            let bytes = try Data(contentsOf: directory.storeURL.appendingPathComponent(name))
            for secret in ["APIKEY-7d1c", "AUTHTOKEN-93be", "PROXY-5a0f"] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(name) holds \(secret)")
            }
        }
    }

    @Test("the default identity fields are Redaction's secret request headers, and they stay digests whatever names are given")
    func defaultSecretHeadersAreIdentity() throws {
        #expect(
            Set(ConditionalRequestPolicy().identityHeaderNames)
                == Redaction.defaultHeaders.subtracting(["set-cookie"]))
        let request = makeRequest(url, headers: ["X-API-Key": "APIKEY-7d1c", "Accept": "text/plain"])
        let anonymous = makeRequest(url, headers: ["Accept": "text/plain"])
        let policy = ConditionalRequestPolicy()
        #expect(policy.primaryKey(for: request) != policy.primaryKey(for: anonymous), "an API key partitions entries")
        for policy in [policy, ConditionalRequestPolicy(identityHeaderNames: ["Authorization"])] {
            let varying = policy.varyingHeaders(of: request, names: ["x-api-key", "accept"])
            #expect(varying["x-api-key"] == ConditionalRequestPolicy.identityDigest(of: request.headers, names: ["x-api-key"]))
            #expect(varying["accept"] == "text/plain")
        }
    }

    @Test("Vary: Authorization still partitions: A's entry is never served to B, and A revalidates with 304")
    func varyAuthorizationPartitions() async throws {
        let resource = VersionedResource(extraHeaders: ["Vary": "Authorization"])
        let origin = ClosureTransport { resource.respond($0) }
        let shared = ETagTransport(inner: origin, store: InMemoryETagStore())
        let alice = makeRequest(url, headers: ["Authorization": "Bearer alice"])
        let bob = makeRequest(url, headers: ["Authorization": "Bearer bob"])

        let aliceFirst = try await shared.send(alice)
        let bobFirst = try await shared.send(bob)
        let aliceAgain = try await shared.send(alice)

        #expect(aliceFirst.text == "body v1 for Bearer alice in any")
        #expect(bobFirst.text == "body v1 for Bearer bob in any" && bobFirst.source == .network)
        #expect(await origin.recordedRequests[1].headers["If-None-Match"] == nil)
        #expect(aliceAgain.text == aliceFirst.text && aliceAgain.source == .revalidated)
        #expect(await origin.recordedRequests[2].headers["If-None-Match"] == resource.etag(for: alice))
    }

    @Test("under one primary key, the stored digest of a varying credential selects its owner only")
    func varyDigestSelects() throws {
        let resource = VersionedResource(extraHeaders: ["Vary": "Authorization"])
        let policy = ConditionalRequestPolicy()
        let alice = makeRequest(url, headers: ["Authorization": "Bearer alice"])
        let bob = makeRequest(url, headers: ["Authorization": "Bearer bob"])
        guard case .store(let entry) = policy.storeDecision(for: resource.respond(alice), to: alice, times: .testExchange) else {
            Issue.record("Alice's 200 was not stored")
            return
        }
        #expect(policy.selects(entry, for: alice))
        #expect(!policy.selects(entry, for: bob))
        #expect(!policy.selects(entry, for: makeRequest(url)))
        #expect(
            policy.variantKey(primaryKey: "k", varyNames: ["authorization"], request: alice)
                != policy.variantKey(primaryKey: "k", varyNames: ["authorization"], request: bob))
    }

    @Test("eviction and refusal events carry a digest of the key, never a credential or URL")
    func storeEventsHoldNoCredential() async throws {
        let memoryEvents = RecordingObserver()
        let memory = InMemoryETagStore(maxEntries: 1)
        _ = try await memoryEvents.observing(ETagTransport(inner: varyingOrigin(), store: memory)).send(credentialedRequest)

        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let fileEvents = RecordingObserver()
        let file = try FileETagStore(directory: directory.storeURL, maxTotalBytes: 1)
        _ = try await fileEvents.observing(ETagTransport(inner: varyingOrigin(), store: file)).send(credentialedRequest)

        let storeEvents = memoryEvents.events(ETagStoreEvent.self) + fileEvents.events(ETagStoreEvent.self)
        #expect(memoryEvents.events(ETagStoreEvent.self).contains { if case .evicted = $0 { true } else { false } })
        #expect(fileEvents.events(ETagStoreEvent.self).contains { if case .rejectedTooLarge = $0 { true } else { false } })
        for event in storeEvents {
            let text = String(describing: event)
            #expect(!containsSecret(text) && !text.contains("api.example.com"), "\(text)")
        }
    }
}

/// A store that remembers every key and entry it was given.
actor RecordingStore: ETagStoreProtocol {
    private let inner = InMemoryETagStore()
    private(set) var written: [(key: String, entry: ETagCacheEntry)] = []

    func cachedResponse(for key: String) async -> ETagCacheEntry? { await inner.cachedResponse(for: key) }
    func store(_ entry: ETagCacheEntry, for key: String) async {
        written.append((key, entry))
        await inner.store(entry, for: key)
    }
    func remove(for key: String) async { await inner.remove(for: key) }
    func removeAll() async { await inner.removeAll() }
}
