#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
@testable import StrataPinning
import StrataTesting
import Testing

@Suite("A host pattern that can never match a URL host is refused, showing the right spelling")
struct HostPatternSpellingTests {
    @Test(
        "ports, schemes, paths, brackets and stray colons are refused, and the message shows the host to write",
        arguments: [
            ("localhost:18443", "'localhost'"), ("api.example.com:443", "'api.example.com'"),
            ("https://api.example.com", "'api.example.com'"), ("api.example.com/v1", "'api.example.com'"),
            ("[::1]", "'::1'"), ("[::1]:8443", "'::1'"), ("127.0.0.1:8443", "'127.0.0.1'"),
            ("*.example.com:443", "'*.example.com'"), ("user@api.example.com", "'api.example.com'"),
        ])
    func refusedWithSpelling(pattern: String, suggestion: String) {
        let error = #expect(throws: PinningConfigurationError.self) { try HostPattern(pattern) }
        #expect(error?.description.contains(suggestion) == true, "\(error?.description ?? "no error")")
    }

    @Test(
        "a colon is accepted only as part of a valid IPv6 literal",
        arguments: [
            "a:b.example.com", "fe80::1%eth0", "::1::2", ":::", "1:2:3:4:5:6:7:8:9", "*.::1",
        ])
    func strayColons(pattern: String) {
        #expect(throws: PinningConfigurationError.self) { try HostPattern(pattern) }
    }

    @Test("valid IPv6 literals are still accepted in any spelling", arguments: ["::1", "0:0:0:0:0:0:0:1", "2001:DB8::1"])
    func ipv6Accepted(pattern: String) throws {
        _ = try HostPattern(pattern)
    }

    @Test("a transport configured with 'localhost:18443' fails closed: localhost is never sent unpinned")
    func portPatternFailsClosed() async throws {
        let inner = CannedRoutesTransport(routes: [
            CannedRoute(
                pattern: RequestPattern(pathRegex: ".*"),
                response: CannedResponse(string: "unpinned"))
        ])
        let transport = PinningTransport(
            inner: inner, pinnedDomains: ["localhost:18443": try Pinning.pins(Fixtures.Pin.leafEC)],
            trustRoots: try Pinning.privateCA())
        #expect(transport.configurationError != nil)
        await #expect(throws: PinningConfigurationError.self) {
            try await transport.send(Pinning.get(URL(string: "https://localhost:18443/")!))
        }
        #expect(await inner.recordedRequests.isEmpty)
    }
}
