import COpenSSL
@testable import StrataPinning
import Testing

@Suite("Host-name checks: canonical names only, no partial wildcards")
struct HostnameFlagsTests {
    @Test("a live connection's host check refuses partial wildcards such as f*.example.com and never reads the subject CN")
    func noPartialWildcards() throws {
        let context = try TLSClientContext(roots: Pinning.privateCA())
        let ssl = try #require(context.makeSSL())
        defer { SSL_free(ssl) }
        try TLSPeerTrust.expect(host: "localhost", on: ssl)
        let flags = X509_VERIFY_PARAM_get_hostflags(SSL_get0_param(ssl))
        #expect(flags & UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS) != 0)
        #expect(flags & UInt32(X509_CHECK_FLAG_NEVER_CHECK_SUBJECT) != 0)
    }

    @Test(
        "a host that is not canonical is refused before it reaches SNI or the name check",
        arguments: ["localhost\0.evil.test", "LOCALHOST", "localhost.", "127.1"])
    func nonCanonicalRefused(host: String) throws {
        let context = try TLSClientContext(roots: Pinning.privateCA())
        let ssl = try #require(context.makeSSL())
        defer { SSL_free(ssl) }
        #expect(throws: ServerTrustError.self) { try TLSPeerTrust.expect(host: host, on: ssl) }
    }
}
