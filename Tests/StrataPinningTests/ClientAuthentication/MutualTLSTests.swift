#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import COpenSSL
import Foundation
import Strata
import StrataConnect
@testable import StrataPinning
import Testing
import TestServer
import TLSTestServer

@Suite("Mutual TLS: a pinned host's client identity is presented when its server asks, and a refusal says why")
struct MutualTLSTests {
    static let clientCA = "client-ca.pem"

    static func identity(_ name: String = "client") throws -> ClientIdentity {
        try ClientIdentity(certificateChainPEM: Fixtures.text("\(name).pem"), privateKeyPEM: Fixtures.text("\(name).key"))
    }

    static func transport(
        identities: [String: ClientIdentity], extra: [String: any ServerTrustEvaluator] = [:],
        httpVersion: HTTPVersionPolicy = .preferHTTP2,
        resolver: any HostNameResolver = SystemHostNameResolver()
    ) throws -> PinningTransport {
        try Pinning.transport(
            extra: extra,
            configuration: .init(
                requestTimeout: .seconds(30), httpVersion: httpVersion,
                clientIdentities: identities),
            resolver: resolver)
    }

    static func clientAuthenticationError(_ transport: PinningTransport, _ url: URL) async throws -> ClientAuthenticationError? {
        let error = await Pinning.error { try await transport.send(Pinning.get(url)) }
        let failure = try #require(error as? TransportError)
        #expect(failure.kind == .tls)
        #expect(!failure.isTransient)
        if let underlying = failure.underlying as? ClientAuthenticationError {
            #expect(failure.message == underlying.description)
        }
        return failure.underlying as? ClientAuthenticationError
    }

    @Test("the configured identity (an encrypted key here) is presented and the server accepts it")
    func presented() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly, clientCertificateAuthority: Self.clientCA)
        server.http.route("/me", response: .init(text: "hello, client"))
        let identity = try ClientIdentity(
            certificateChainPEM: Fixtures.text("client.pem"),
            privateKeyPEM: Fixtures.text("client-encrypted.key"),
            passphrase: ClientIdentityTests.passphrase)
        let transport = try Self.transport(identities: ["localhost": identity])
        #expect(try await transport.send(Pinning.get(server.url("/me"))).text == "hello, client")
        #expect(server.handshakes.map(\.clientCertificateName) == ["strata-test-client"])
    }

    @Test(
        "a server requiring a certificate and getting none fails with certificateRequired, over TLS 1.3 and 1.2",
        arguments: [nil, Int32(TLS1_2_VERSION)])
    func required(maxProtocolVersion: Int32?) async throws {
        let server = try TLSLoopbackServer(
            identity: .leafOnly, maxProtocolVersion: maxProtocolVersion,
            clientCertificateAuthority: Self.clientCA)
        server.http.route("/me", response: .init(text: "never"))
        let transport = try Self.transport(identities: [:])
        #expect(try await Self.clientAuthenticationError(transport, server.url("/me")) == .certificateRequired(host: "localhost"))
        #expect(server.http.requestCount == 0)
    }

    @Test("over HTTP/2 the refusal reaches the caller the same way")
    func requiredOverHTTP2() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly, alpn: "h2", clientCertificateAuthority: Self.clientCA)
        let transport = try Self.transport(identities: [:])
        #expect(try await Self.clientAuthenticationError(transport, server.url("/me")) == .certificateRequired(host: "localhost"))
    }

    @Test("a certificate from a CA the server does not trust is refused, named, with the server's alert")
    func untrusted() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly, clientCertificateAuthority: Self.clientCA)
        let transport = try Self.transport(identities: ["localhost": Self.identity("client-untrusted")])
        let error = try await Self.clientAuthenticationError(transport, server.url("/"))
        #expect(error == .certificateRefused(host: "localhost", subject: "CN=strata-test-client,O=Mallory", alert: "unknown_ca"))
    }

    @Test("the most specific matching pattern's identity is the one presented")
    func mostSpecific() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly, clientCertificateAuthority: Self.clientCA)
        server.http.route("/", response: .init(text: "ok"))
        let pins = try Pinning.pins(Fixtures.Pin.leafEC)
        let resolver = ScriptedResolver { _, port in [("127.0.0.1", port)] }
        let url = URL(string: "https://api.strata.test:\(server.port)/")!
        let specificTrusted = try Self.transport(
            identities: ["**.strata.test": Self.identity("client-untrusted"), "api.strata.test": Self.identity()],
            extra: ["**.strata.test": pins, "api.strata.test": pins], resolver: resolver)
        #expect(try await specificTrusted.send(Pinning.get(url)).text == "ok")
        let specificUntrusted = try Self.transport(
            identities: ["**.strata.test": Self.identity(), "*.strata.test": Self.identity("client-untrusted")],
            extra: ["**.strata.test": pins, "*.strata.test": pins], resolver: resolver)
        guard case .certificateRefused? = try await Self.clientAuthenticationError(specificUntrusted, url) else {
            Issue.record("the *. identity should have been presented")
            return
        }
    }

    @Test("an identity for a pattern that pinnedDomains does not have is a configuration error (fail closed)")
    func identityWithoutPins() throws {
        let transport = try Self.transport(identities: ["other.example": Self.identity()])
        #expect(transport.configurationError == .clientIdentityWithoutPins(hostPattern: "other.example"))
        let malformed = try Self.transport(identities: ["localhost:443": Self.identity()])
        guard case .malformedHostPattern? = malformed.configurationError else {
            Issue.record("expected a malformed pattern, got \(String(describing: malformed.configurationError))")
            return
        }
    }

    @Test("a host without an identity presents none, even when another host has one")
    func otherHostsUnaffected() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/", response: .init(text: "anonymous"))
        let transport = try Self.transport(
            identities: ["api.strata.test": Self.identity()],
            extra: ["api.strata.test": Pinning.pins(Fixtures.Pin.leafEC)])
        #expect(try await transport.send(Pinning.get(server.url("/"))).text == "anonymous")
        #expect(server.handshakes.map(\.clientCertificateName) == [nil])
    }

    @Test(
        "nginx requiring client certificates serves the identity's request over HTTP/2",
        .enabled(if: NginxServer.isInstalled, Comment(rawValue: NginxServer.missing)))
    func nginxOverHTTP2() async throws {
        let server = try await NginxServer.start(
            directives: """
                ssl_verify_client on;
                ssl_client_certificate \(TLSLoopbackServer.fixtures.appendingPathComponent(Self.clientCA).path);
                location / { return 200 "$ssl_client_s_dn"; }
                """)
        let events = PinningEventLog()
        let transport = events.observing(try Self.transport(identities: ["localhost": Self.identity()]))
        #expect(try await transport.send(Pinning.get(server.url("/"))).text == "CN=strata-test-client,O=Strata Tests")
        #expect(events.http2Responses == 1)
    }
}
