#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
@testable import StrataPinning
import Testing
import TestServer
import TLSTestServer

/// Issue 21, item 5, for real: two stacks with different client certificates share one ETag
/// store, in front of a server that tells callers apart only by their certificate and gives
/// them all the same validators.
@Suite("Client certificates partition a shared ETag store: one caller's body is never served to another")
struct ClientIdentityCacheTests {
    static let etag = "\"5f1d7a2c-1a\""
    static let lastModified = "Tue, 01 Jul 2025 10:00:00 GMT"

    /// What each request carried, by the common name of the certificate it came with.
    final class Seen: Sendable {
        private let requests = LockedValue<[(caller: String, conditional: Bool)]>([])
        var all: [(caller: String, conditional: Bool)] { requests.withLock { $0 } }
        func append(_ caller: String, conditional: Bool) { requests.withLock { $0.append((caller, conditional)) } }
    }

    /// A server requiring a `client-ca` certificate that answers like nginx serving a file per
    /// caller: the body names the caller, the validators are the same for everyone, and a
    /// matching `If-None-Match` is a 304.
    static func server(recording seen: Seen) throws -> TLSLoopbackServer {
        let server = try TLSLoopbackServer(identity: .leafOnly, clientCertificateAuthority: MutualTLSTests.clientCA)
        server.http.route("/report") { request in
            let caller = request.clientCertificateName ?? "nobody"
            let conditional = request.header("If-None-Match") != nil || request.header("If-Modified-Since") != nil
            seen.append(caller, conditional: conditional)
            let headers = [("ETag", etag), ("Last-Modified", lastModified)]
            if request.header("If-None-Match") == etag { return .init(status: 304, headers: headers) }
            return .init(headers: headers, text: "\(caller)'s report")
        }
        return server
    }

    static func stack(
        _ identity: String, store: any ETagStoreProtocol,
        partition: CachePartition = .perCredential
    ) throws -> ETagTransport {
        let pinning = try MutualTLSTests.transport(
            identities: ["localhost": MutualTLSTests.identity(identity)],
            httpVersion: .http1Only)
        return ETagTransport(inner: pinning, store: store, policy: ConditionalRequestPolicy(partition: partition))
    }

    @Test(
        "B's first GET reaches the server unconditional and gets B's body; each then revalidates its own entry",
        arguments: [CachePartition.perCredential, .named("reports")])
    func sharedStore(partition: CachePartition) async throws {
        let seen = Seen()
        let server = try Self.server(recording: seen)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-mtls-etag-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try FileETagStore(directory: directory)
        let alice = try Self.stack("client", store: store, partition: partition)
        let bob = try Self.stack("client-second", store: store, partition: partition)
        let url = server.url("/report")

        #expect(try await alice.send(Pinning.get(url)).text == "strata-test-client's report")
        let bobsFirst = try await bob.send(Pinning.get(url))
        #expect(bobsFirst.text == "strata-test-client-2's report")
        #expect(bobsFirst.source == .network)
        let bobsSecond = try await bob.send(Pinning.get(url))
        #expect(bobsSecond.source == .revalidated && bobsSecond.text == "strata-test-client-2's report")
        let alicesSecond = try await alice.send(Pinning.get(url))
        #expect(alicesSecond.source == .revalidated && alicesSecond.text == "strata-test-client's report")

        #expect(
            seen.all.map(\.caller) == [
                "strata-test-client", "strata-test-client-2", "strata-test-client-2",
                "strata-test-client",
            ])
        #expect(seen.all.map(\.conditional) == [false, false, true, true], "no validator of A's reached the server for B")
    }

    @Test("the reported identity: none without client certificates, the whole table when redirects are followed, the host's pin without")
    func reportedIdentity() throws {
        let url = URL(string: "https://localhost/report")!
        let other = URL(string: "https://api.strata.test/report")!
        let pins = try Pinning.pins(Fixtures.Pin.leafEC)
        let identity = try MutualTLSTests.identity()
        #expect(try Pinning.transport().cacheIdentity(for: url) == nil)

        let following = try Pinning.transport(
            extra: ["api.strata.test": pins],
            configuration: .init(clientIdentities: ["localhost": identity]))
        let table = "localhost \(identity.certificate.spkiPin)"
        #expect(following.cacheIdentity(for: url) == table)
        #expect(following.cacheIdentity(for: other) == table, "a redirect from api.strata.test may end on localhost")

        let direct = try Pinning.transport(
            extra: ["api.strata.test": pins],
            configuration: .init(maxRedirects: 0, clientIdentities: ["localhost": identity]))
        #expect(direct.cacheIdentity(for: url) == identity.certificate.spkiPin)
        #expect(direct.cacheIdentity(for: other) == nil)

        let second = try Pinning.transport(configuration: .init(clientIdentities: ["localhost": MutualTLSTests.identity("client-second")]))
        #expect(second.cacheIdentity(for: url) != following.cacheIdentity(for: url))
    }
}
