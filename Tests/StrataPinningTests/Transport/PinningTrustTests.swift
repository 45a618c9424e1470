#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
@testable import StrataPinning
import StrataTesting
import Testing
import TLSTestServer

@Suite("PinningTransport checks trust on its own TLS connection before the first request byte")
struct PinningTrustTests {
    @Test("a correct leaf pin passes and the response comes back over TLS 1.2+")
    func leafPinPasses() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/hello", response: .init(text: "hi"))
        let events = PinningEventLog()
        let transport = events.observing(try Pinning.transport(pins: [Fixtures.Pin.leafEC]))
        let response = try await transport.send(Pinning.get(server.url("/hello")))
        #expect(response.statusCode == 200)
        #expect(response.text == "hi")
        #expect(events.trust.first?.matchedPin == Fixtures.Pin.leafEC)
        let versions = events.all.compactMap { if case let .connectionOpened(_, _, version, _) = $0 { version } else { nil } }
        #expect(versions == ["TLSv1.3"])
    }

    @Test("a CA pin passes through a server that sends only its leaf: pins are matched on the verified chain")
    func caPinThroughLeafOnlyServer() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/hello", response: .init(text: "hi"))
        let events = PinningEventLog()
        let transport = events.observing(try Pinning.transport(pins: [Fixtures.Pin.ca]))
        let response = try await transport.send(Pinning.get(server.url("/hello")))
        #expect(response.text == "hi")
        #expect(events.trust.first?.matchedPin == Fixtures.Pin.ca)
    }

    @Test("an intermediate pin passes for a leaf sent with its intermediate")
    func intermediatePin() async throws {
        let server = try TLSLoopbackServer(identity: .viaIntermediate)
        server.http.route("/hello", response: .init(text: "hi"))
        let transport = try Pinning.transport(pins: [Fixtures.Pin.intermediate])
        #expect(try await transport.send(Pinning.get(server.url("/hello"))).text == "hi")
    }

    @Test("a wrong pin fails as a non-transient TLS error listing the chain's pins, and no request byte reaches the server")
    func wrongPin() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/secret", response: .init(text: "secret"))
        let events = PinningEventLog()
        let transport = events.observing(try Pinning.transport(pins: [Fixtures.Pin.attackerLeaf]))
        let error = await Pinning.error {
            try await transport.send(Pinning.get(server.url("/secret"), headers: ["Authorization": "Bearer t"]))
        }
        let failure = try #require(error as? TransportError)
        #expect(failure.kind == .tls)
        #expect(!failure.isTransient)
        guard case let .pinMismatch(host, chain, pins)? = failure.serverTrustError else {
            Issue.record("expected a pin mismatch, got \(failure)")
            return
        }
        #expect(host == "localhost")
        #expect(chain.map(\.spkiPin) == [Fixtures.Pin.leafEC, Fixtures.Pin.ca])
        #expect(pins == [Fixtures.Pin.attackerLeaf])
        #expect(failure.message.contains(Fixtures.Pin.leafEC))
        #expect(failure.message.contains(Fixtures.Pin.ca))
        #expect(failure.method == .get)
        #expect(failure.url == server.url("/secret"))
        // The handshake succeeded on the server side, then the client closed without writing.
        #expect(server.http.connectionCount == 1)
        #expect(server.http.rejectedChannelCount == 0)
        #expect(server.http.requestCount == 0)
        #expect(events.trust.first?.failure?.contains("Certificate pinning failure for localhost!") == true)
        // The client side agrees: the HTTP/1.1 layer never wrote a request.
        #expect(!events.all.contains { if case .requestWritten = $0 { true } else { false } })
    }

    @Test("a forged chain (attacker leaf with the genuine pinned CA appended) is refused before any request byte")
    func forgedChain() async throws {
        let server = try TLSLoopbackServer(identity: .forgedChain)
        server.http.route("/secret", response: .init(text: "secret"))
        let transport = try Pinning.transport(pins: [Fixtures.Pin.ca])
        let error = await Pinning.error { try await transport.send(Pinning.get(server.url("/secret"))) }
        let failure = try #require(error as? TransportError)
        #expect(failure.kind == .tls)
        guard case .untrustedIssuer? = failure.serverTrustError else {
            Issue.record("expected untrustedIssuer, got \(failure)")
            return
        }
        #expect(server.http.requestCount == 0)
    }

    /// A certificate OpenSSL refuses: which server, which roots, and the error case expected.
    struct RefusedCase: Sendable, CustomTestStringConvertible {
        let name: String
        let identity: TLSLoopbackServer.Identity
        let systemRoots: Bool
        let matches: @Sendable (ServerTrustError) -> Bool
        var testDescription: String { name }
    }

    @Test(
        "expired, wrong-host, SAN-less, self-signed and untrusted chains fail with distinct trust errors and send nothing",
        arguments: [
            RefusedCase(name: "expired", identity: .expired, systemRoots: false) {
                if case .certificateExpired = $0 { true } else { false }
            },
            RefusedCase(name: "wrong host", identity: .wrongHost, systemRoots: false) {
                if case .hostnameMismatch = $0 { true } else { false }
            },
            // RFC 6125 §6.4.4: with no subjectAltName, the subject CN names no host.
            RefusedCase(name: "no subjectAltName, CN=localhost", identity: .sanLess, systemRoots: false) {
                if case .hostnameMismatch = $0 { true } else { false }
            },
            RefusedCase(name: "self-signed", identity: .selfSigned, systemRoots: false) {
                if case .selfSignedCertificate = $0 { true } else { false }
            },
            RefusedCase(name: "untrusted chain (private CA leaf, system roots)", identity: .leafOnly, systemRoots: true) {
                if case .untrustedIssuer = $0 { true } else { false }
            },
        ])
    func refusedChains(_ refused: RefusedCase) async throws {
        let server = try TLSLoopbackServer(identity: refused.identity)
        server.http.route("/secret", response: .init(text: "secret"))
        let transport = try Pinning.transport(
            pins: [Fixtures.Pin.ca, Fixtures.Pin.leafEC],
            roots: refused.systemRoots ? .system : nil)
        let error = await Pinning.error { try await transport.send(Pinning.get(server.url("/secret"))) }
        let failure = try #require(error as? TransportError)
        #expect(failure.kind == .tls)
        let trust = try #require(failure.serverTrustError)
        #expect(refused.matches(trust), "\(refused.name): got \(trust)")
        #expect(failure.message == trust.description)
        #expect(server.http.requestCount == 0)
    }

    @Test("each refused certificate maps to its own case, so the four failures are distinguishable")
    func distinctCases() {
        let cases: [ServerTrustError] = [
            .certificateExpired(host: "h", code: 10, reason: ""), .hostnameMismatch(host: "h", code: 62, reason: ""),
            .selfSignedCertificate(host: "h", code: 18, reason: ""), .untrustedIssuer(host: "h", code: 20, reason: ""),
        ]
        #expect(Set(cases.map(\.description)).count == 4)
    }

    @Test("a pinned-key-only configuration accepts the pinned self-signed server")
    func pinnedKeysOnly() async throws {
        let server = try TLSLoopbackServer(identity: .selfSigned)
        server.http.route("/hello", response: .init(text: "hi"))
        let selfSigned = try Fixtures.certificate("self-signed")
        let transport = try Pinning.transport(pins: [selfSigned.spkiPin], roots: .pinnedKeysOnly)
        #expect(try await transport.send(Pinning.get(server.url("/hello"))).text == "hi")
    }

    @Test("an IP-literal host is verified against the certificate's IP SAN (no SNI)")
    func ipLiteral() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/hello", response: .init(text: "hi"))
        let transport = PinningTransport(
            inner: CannedRoutesTransport(routes: []),
            pinnedDomains: ["127.0.0.1": try Pinning.pins(Fixtures.Pin.leafEC)],
            trustRoots: try Pinning.privateCA())
        #expect(try await transport.send(Pinning.get(server.url("/hello", host: "127.0.0.1"))).text == "hi")
    }
}
