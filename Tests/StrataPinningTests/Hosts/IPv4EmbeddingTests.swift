#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
@testable import StrataPinning
import StrataTesting
import Testing
import TLSTestServer

@Suite("An IPv6 literal that embeds an IPv4 address is that IPv4 host: one host, one name, its pins")
struct IPv4EmbeddingTests {
    @Test(
        "mapped, compatible, translated and NAT64 forms canonicalize to the IPv4 address",
        arguments: [
            ("::ffff:127.0.0.1", "127.0.0.1"), ("[::ffff:127.0.0.1]", "127.0.0.1"), ("::FFFF:7F00:1", "127.0.0.1"),
            ("0:0:0:0:0:ffff:7f00:1", "127.0.0.1"), ("::127.0.0.1", "127.0.0.1"), ("::ffff:0:10.1.2.3", "10.1.2.3"),
            ("64:ff9b::192.0.2.1", "192.0.2.1"), ("64:FF9B::C000:201", "192.0.2.1"),
        ])
    func embeddedIPv4(host: String, ipv4: String) throws {
        let canonical = try CanonicalHost(host)
        #expect(canonical.name == ipv4)
        #expect(canonical.isIPAddress)
    }

    @Test(
        "IPv6 addresses that embed nothing keep their IPv6 form",
        arguments: [
            ("::1", "::1"), ("::", "::"), ("2001:db8::1", "2001:db8::1"), ("::ffff:0:0:1", "::ffff:0:0:1"),
        ])
    func plainIPv6(host: String, expected: String) throws {
        #expect(try CanonicalHost(host).name == expected)
    }

    @Test("a pattern written for 127.0.0.1 matches [::ffff:127.0.0.1], and a mapped pattern matches 127.0.0.1")
    func patternsMatchBothSpellings() throws {
        #expect(try HostPattern("127.0.0.1").matches("[::ffff:127.0.0.1]"))
        #expect(try HostPattern("::ffff:127.0.0.1").matches("127.0.0.1"))
    }

    @Test("https://[::ffff:127.0.0.1]/ with 127.0.0.1 pinned is carried pinned, never by the inner transport")
    func mappedLiteralIsPinned() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/secret", response: .init(text: "pinned"))
        let inner = CannedRoutesTransport(routes: [
            CannedRoute(
                pattern: RequestPattern(pathRegex: ".*"),
                response: CannedResponse(string: "unpinned"))
        ])
        let transport = PinningTransport(
            inner: inner, pinnedDomains: ["127.0.0.1": try Pinning.pins(Fixtures.Pin.leafEC)],
            trustRoots: try Pinning.privateCA())
        let url = URL(string: "https://[::ffff:127.0.0.1]:\(server.port)/secret")!
        let response = try await transport.send(Pinning.get(url))
        #expect(response.text == "pinned")
        #expect(await inner.recordedRequests.isEmpty)

        let wrongPin = PinningTransport(
            inner: inner, pinnedDomains: ["127.0.0.1": try Pinning.pins(Fixtures.Pin.attackerCA)],
            trustRoots: try Pinning.privateCA())
        let error = await Pinning.error { try await wrongPin.send(Pinning.get(url)) }
        #expect((error as? TransportError)?.kind == .tls)
        #expect(await inner.recordedRequests.isEmpty)
    }
}
