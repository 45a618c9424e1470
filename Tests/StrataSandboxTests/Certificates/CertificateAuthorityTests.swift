#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import COpenSSL
import Foundation
import Strata
import StrataPinning
@testable import StrataSandbox
import Testing

/// The CA and server certificate the sandbox generates at startup, checked by OpenSSL itself.
@Suite("CertificateAuthority")
struct CertificateAuthorityTests {
    /// OpenSSL's view of a generated certificate, for the checks `Certificate` does not expose.
    private final class Parsed {
        let pointer: OpaquePointer
        init(_ certificate: GeneratedCertificate) throws {
            pointer = try #require(
                certificate.der.withUnsafeBytes { raw -> OpaquePointer? in
                    var cursor = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
                    return d2i_X509(nil, &cursor, raw.count)
                })
        }
        deinit { X509_free(pointer) }

        /// The key's algorithm and curve, such as `EC prime256v1`.
        var keyType: String {
            guard let key = X509_get0_pubkey(pointer) else { return "none" }
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            _ = EVP_PKEY_get_group_name(key, &name, name.count, &length)
            return (EVP_PKEY_is_a(key, "EC") == 1 ? "EC " : "other ")
                + String(decoding: name.prefix(length).map(UInt8.init(bitPattern:)), as: UTF8.self)
        }

        /// Whether the names match with the subject's CN ignored: subjectAltName alone must do.
        func matches(host: String) -> Bool {
            X509_check_host(pointer, host, host.utf8.count, UInt32(X509_CHECK_FLAG_NEVER_CHECK_SUBJECT), nil) == 1
        }

        func matches(ip: String) -> Bool { X509_check_ip_asc(pointer, ip, 0) == 1 }

        var isCA: Bool { X509_check_ca(pointer) == 1 }
    }

    @Test("CA and leaf are EC P-256, valid for the lifetime asked (and a minute of skew), the leaf issued by the CA")
    func shape() throws {
        let authority = try CertificateAuthority(name: "Test CA", lifetime: .seconds(3_600))
        let identity = try authority.issueServerIdentity(dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], lifetime: .seconds(600))
        let ca = try Certificate(der: authority.certificate.der)
        let leaf = try Certificate(der: identity.certificate.der)
        #expect(ca.subject == "CN=Test CA,O=Strata Sandbox")
        #expect(ca.issuer == ca.subject)
        #expect(leaf.subject == "CN=localhost,O=Strata Sandbox")
        #expect(leaf.issuer == ca.subject)
        #expect(ca.notAfter.timeIntervalSince(ca.notBefore) == 3_600 + 60)
        #expect(leaf.notAfter.timeIntervalSince(leaf.notBefore) == 600 + 60)
        #expect(try Parsed(authority.certificate).keyType == "EC prime256v1")
        #expect(try Parsed(identity.certificate).keyType == "EC prime256v1")
        #expect(try Parsed(authority.certificate).isCA)
        #expect(try !Parsed(identity.certificate).isCA)
        #expect(try Certificate(pem: authority.certificate.pem) == ca, "the PEM text is the same certificate")
    }

    @Test("the leaf names its hosts in subjectAltName only, so a SAN-only host check accepts them and nothing else")
    func subjectAltNames() throws {
        let identity = try CertificateAuthority(name: "Test CA", lifetime: .seconds(60))
            .issueServerIdentity(dnsNames: ["localhost"], ipAddresses: ["127.0.0.1", "::1"], lifetime: .seconds(60))
        let leaf = try Parsed(identity.certificate)
        #expect(leaf.matches(host: "localhost"))
        #expect(leaf.matches(ip: "127.0.0.1"))
        #expect(leaf.matches(ip: "::1"))
        #expect(!leaf.matches(host: "example.com"))
        #expect(!leaf.matches(ip: "127.0.0.2"))
    }

    @Test("every start makes new keys: two sandboxes never share a pin")
    func freshKeys() throws {
        let first = try Sandbox()
        let second = try Sandbox()
        #expect(try Certificate(der: first.serverCertificate.der).spkiPin != Certificate(der: second.serverCertificate.der).spkiPin)
        #expect(first.caCertificate != second.caCertificate)
    }

    @Test("a pinned client that trusts only the generated CA reaches the sandbox by name and by address")
    func trustedOverTLS() async throws {
        let sandbox = try Sandbox()
        let pin = try Certificate(der: sandbox.serverCertificate.der).spkiPin
        for host in ["localhost", "127.0.0.1"] {
            let transport = try PinningTransport.validated(
                pinnedDomains: [host: try PublicKeyPinningEvaluator(pins: [pin])],
                trustRoots: .certificates([try Certificate(der: sandbox.caCertificate.der)]))
            var request = URLRequest(url: sandbox.server.url("/v1/todos/1", host: host))
            request.setValue("Bearer \(sandbox.validToken)", forHTTPHeaderField: "Authorization")
            let response = try await transport.send(request)
            #expect(response.statusCode == 200)
            #expect(response.text == #"{"id":1,"title":"Buy milk"}"#)
        }
    }
}
