#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing

/// Issue 21, item 5: entries are partitioned by the client certificate the transport below
/// presents, and a partition the caller names survives a token refresh.
@Suite("Cache partitions: a named partition survives a token refresh, a client certificate is its own partition")
struct CachePartitionTests {
    static let url = "https://api.example.com/report"
    static let etag = "\"mtime-size\""
    static let lastModified = "Tue, 01 Jul 2025 10:00:00 GMT"

    /// An origin like nginx serving static files: the same validators to every caller (they name
    /// the file's mtime and size), a body that depends on who `caller` says is asking, and a 304
    /// whenever the request's validator matches. Records what each request carried.
    final class SameValidatorOrigin: Sendable {
        struct Seen: Sendable, Equatable {
            var caller: String
            var ifNoneMatch: String?
            var ifModifiedSince: String?
            var isConditional: Bool { ifNoneMatch != nil || ifModifiedSince != nil }
        }

        private let seen = LockedValue<[Seen]>([])
        var requests: [Seen] { seen.withLock { $0 } }

        func respond(to request: HTTPRequest, caller: String) -> HTTPResponse {
            let record = Seen(
                caller: caller, ifNoneMatch: request.headers["If-None-Match"],
                ifModifiedSince: request.headers["If-Modified-Since"])
            seen.withLock { $0.append(record) }
            let headers: HTTPHeaders = ["ETag": CachePartitionTests.etag, "Last-Modified": CachePartitionTests.lastModified]
            if record.ifNoneMatch == CachePartitionTests.etag { return HTTPResponse(statusCode: 304, headers: headers) }
            return HTTPResponse(statusCode: 200, headers: headers, body: Data("\(caller)'s report".utf8))
        }
    }

    /// A terminal transport that reports the client identity it would present, as
    /// `PinningTransport` does, and tells the origin that identity is the caller.
    struct CertificateTransport: Transport, CacheIdentityProviding {
        let identity: String
        let origin: SameValidatorOrigin
        /// Who the origin says the body is for; the identity itself by default.
        var caller: String?

        func cacheIdentity(for url: URL) -> String? { identity }
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            origin.respond(to: request, caller: caller ?? identity)
        }
    }

    /// A third-party decorator that does not forward the question.
    struct OpaqueDecorator: Transport {
        let inner: any Transport
        func send(_ request: HTTPRequest) async throws -> HTTPResponse { try await inner.send(request) }
    }

    static func get(token: String? = nil) -> HTTPRequest {
        makeRequest(url, headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:])
    }

    // MARK: Client identities

    @Test(
        "two client certificates, one store, the same validators: B's first GET is unconditional and gets B's body",
        arguments: [CachePartition.perCredential, .named("svc")])
    func clientIdentitiesArePartitions(partition: CachePartition) async throws {
        let origin = SameValidatorOrigin()
        let store = InMemoryETagStore()
        let policy = ConditionalRequestPolicy(partition: partition)
        let alice = ETagTransport(inner: CertificateTransport(identity: "sha256/alice", origin: origin), store: store, policy: policy)
        let bob = ETagTransport(inner: CertificateTransport(identity: "sha256/bob", origin: origin), store: store, policy: policy)

        #expect(try await alice.send(Self.get(token: "shared")).body == Data("sha256/alice's report".utf8))
        let first = try await bob.send(Self.get(token: "shared"))
        #expect(first.body == Data("sha256/bob's report".utf8))
        #expect(first.source == .network)
        #expect(origin.requests.map(\.isConditional) == [false, false], "no validator of Alice's reaches the server for Bob")

        let again = try await bob.send(Self.get(token: "shared"))
        #expect(again.source == .revalidated && again.body == Data("sha256/bob's report".utf8), "Bob keeps his own entry")
    }

    @Test("Strata's decorators between the cache and the certificate pass the identity on; a foreign one hides it")
    func decoratorsForward() async throws {
        let origin = SameValidatorOrigin()
        let terminal = CertificateTransport(identity: "sha256/alice", origin: origin)
        let between = TransportStack(
            .logging(logger: ConsoleLogger(write: { _ in })), .observing { _ in }, .retry(), terminal: terminal)
        let reauth = ReauthTransport(inner: between, authService: InMemoryAuthService(), refreshToken: {})
        let url = URL(string: Self.url)!
        #expect(reauth.cacheIdentity(for: url) == "sha256/alice")
        #expect(ETagTransport(inner: reauth).inner is any CacheIdentityProviding)
        #expect(TransportStack(terminal: OpaqueDecorator(inner: terminal)).cacheIdentity(for: url) == nil)

        let policy = ConditionalRequestPolicy()
        let keyed = policy.primaryKey(for: Self.get(), clientIdentity: reauth.cacheIdentity(for: url))
        #expect(keyed != policy.primaryKey(for: Self.get()))
    }

    // MARK: Named partitions and token refreshes

    @Test("with .named, a GET with a refreshed token is sent conditionally and answered 304 from the store")
    func namedPartitionSurvivesRefresh() async throws {
        let origin = SameValidatorOrigin()
        let transport = ETagTransport(
            inner: ClosureTransport { origin.respond(to: $0, caller: "svc") },
            policy: ConditionalRequestPolicy(partition: .named("svc")))
        _ = try await transport.send(Self.get(token: "T1"))
        let refreshed = try await transport.send(Self.get(token: "T2"))
        #expect(origin.requests.map(\.ifNoneMatch) == [nil, Self.etag])
        #expect(refreshed.statusCode == 200 && refreshed.source == .revalidated)
        #expect(refreshed.body == Data("svc's report".utf8))
    }

    @Test("with .perCredential (the default), a GET with another token is unconditional: a new token, a new partition")
    func perCredentialPartitionsByToken() async throws {
        let origin = SameValidatorOrigin()
        let transport = ETagTransport(inner: ClosureTransport { origin.respond(to: $0, caller: "svc") })
        _ = try await transport.send(Self.get(token: "T1"))
        let refreshed = try await transport.send(Self.get(token: "T2"))
        #expect(origin.requests.map(\.isConditional) == [false, false])
        #expect(refreshed.source == .network)
    }

    @Test("different names are different partitions, and a name ignores credentials and userinfo")
    func namedKeys() {
        let named = ConditionalRequestPolicy(partition: .named("svc"))
        let other = ConditionalRequestPolicy(partition: .named("svc-2"))
        let withUserinfo = makeRequest("https://u:p@api.example.com/report")
        #expect(named.primaryKey(for: Self.get(token: "T1")) == named.primaryKey(for: Self.get(token: "T2")))
        #expect(named.primaryKey(for: Self.get()) == named.primaryKey(for: withUserinfo))
        #expect(named.primaryKey(for: Self.get()) != other.primaryKey(for: Self.get()))
        #expect(named.primaryKey(for: Self.get()) != ConditionalRequestPolicy().primaryKey(for: Self.get()))
        #expect(CachePartition.named("svc") == .named("svc") && CachePartition.named("svc") != .perCredential)
    }

    @Test("without a name or a client certificate the key is the one earlier versions wrote: upgrading orphans nothing")
    func perCredentialKeyUnchanged() {
        let policy = ConditionalRequestPolicy()
        let request = Self.get(token: "T1")
        let partition = policy.identityPartition(of: request.headers)
        #expect(policy.primaryKey(for: request) == "etag-v1 \(Self.url) id=\(partition)")
        #expect(policy.primaryKey(for: Self.get()) == "etag-v1 \(Self.url) id=-")
    }

    // MARK: Nothing in clear

    @Test("the partition name and the client identity appear in no key, event, file name or stored file")
    func nameNeverInClear() async throws {
        let name = "tenant-acme-7c1f"
        let identity = "sha256/CERTIFICATE-PIN-MARKER"
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let fileStore = try FileETagStore(directory: directory.storeURL)
        let store = RecordingStore()
        let policy = ConditionalRequestPolicy(partition: .named(name))
        let recorder = RecordingObserver()
        let origin = SameValidatorOrigin()
        for store in [store, fileStore] as [any ETagStoreProtocol] {
            let transport = recorder.observing(
                ETagTransport(
                    inner: CertificateTransport(identity: identity, origin: origin, caller: "the tenant"), store: store,
                    policy: policy))
            _ = try await transport.send(Self.get(token: "T1"))
            _ = try await transport.send(Self.get(token: "T2"))
        }

        func inClear(_ text: String) -> Bool { text.contains(name) || text.contains("CERTIFICATE-PIN-MARKER") }
        func inClear(_ bytes: Data) -> Bool {
            bytes.range(of: Data(name.utf8)) != nil || bytes.range(of: Data("CERTIFICATE-PIN-MARKER".utf8)) != nil
        }
        #expect(origin.requests.map(\.isConditional) == [false, true, false, true])
        let written = await store.written
        #expect(!written.isEmpty)
        for (key, entry) in written {
            #expect(!inClear(key), "\(key)")
            #expect(!inClear(try JSONEncoder().encode(entry)))
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.storeURL.path)
        #expect(files.count == 2, "the key file and one entry")
        for file in files {
            #expect(!inClear(file))
            #expect(!inClear(try Data(contentsOf: directory.storeURL.appendingPathComponent(file))), "\(file)")
        }
        #expect(recorder.names.contains("etag.revalidated"))
        for observed in recorder.all {
            let event = observed.event
            let text = event.message(redactedBy: Redaction()) + "\(event.logMetadata(redactedBy: Redaction()))"
            #expect(!inClear(text) && !inClear(String(reflecting: event)), "\(text)")
        }
        var dumped = ""
        dump(policy, to: &dumped)
        #expect(!inClear(dumped) && !inClear(String(describing: policy.partition)), "\(dumped)")
    }
}
