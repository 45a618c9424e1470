import COpenSSL
import Strata
@testable import StrataPinning
import Testing
import TLSTestServer

@Suite("No fallback to the subject CN: a certificate without subjectAltName names no host (RFC 6125 §6.4.4)")
struct SubjectNameFallbackTests {
    @Test("every host check carries X509_CHECK_FLAG_NEVER_CHECK_SUBJECT")
    func flagIsSet() throws {
        let context = try TLSClientContext(roots: Pinning.privateCA())
        let ssl = try #require(context.makeSSL())
        defer { SSL_free(ssl) }
        try TLSPeerTrust.expect(host: "localhost", on: ssl)
        let flags = X509_VERIFY_PARAM_get_hostflags(SSL_get0_param(ssl))
        #expect(flags & UInt32(X509_CHECK_FLAG_NEVER_CHECK_SUBJECT) != 0)
        #expect(flags & UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS) != 0)
    }

    @Test("a CN=localhost certificate with no subjectAltName is refused for localhost, before any request byte")
    func sanLessCertificateRefused() async throws {
        let server = try TLSLoopbackServer(identity: .sanLess)
        server.http.route("/secret", response: .init(text: "secret"))
        let transport = try Pinning.transport(pins: [Fixtures.Pin.ca, Fixtures.Pin.leafEC])
        let error = await Pinning.error { try await transport.send(Pinning.get(server.url("/secret"))) }
        let failure = try #require(error as? TransportError)
        #expect(failure.kind == .tls)
        guard case .hostnameMismatch = failure.serverTrustError else {
            Issue.record("expected a host name mismatch, got \(failure)")
            return
        }
        #expect(server.http.requestCount == 0)
    }
}
