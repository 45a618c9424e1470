import Foundation
@testable import StrataPinning
import Testing

/// The post-handshake trust decision on real (in-memory) TLS handshakes: what the pinned
/// transport runs before writing the first request byte.
@Suite("Trust decision after a TLS handshake")
struct TLSPeerTrustTests {
    let privateCA: TrustRoots
    let wrongPin = "sha256/" + Data(repeating: 0, count: 32).base64EncodedString()

    init() throws {
        privateCA = .certificates([try Fixtures.certificate("ca")])
    }

    @Test("a CA pin passes through a leaf-only server: the verified chain adds the CA the server never sent")
    func caPinThroughLeafOnlyServer() throws {
        let handshake = try InMemoryHandshake(
            serverChain: "leaf-ec.pem", key: "leaf-ec.key", host: "localhost",
            roots: privateCA)
        #expect(handshake.completed)
        let chain = try TLSPeerTrust.chainToEvaluate(on: handshake.client, host: "localhost", roots: privateCA)
        #expect(chain.map(\.spkiPin) == [Fixtures.Pin.leafEC, Fixtures.Pin.ca])
        try TLSPeerTrust.check(
            handshake.client, host: "localhost", roots: privateCA,
            evaluator: PublicKeyPinningEvaluator(pins: [Fixtures.Pin.ca]))
        #expect(handshake.serverNameSeen == "localhost")
    }

    @Test("an RSA leaf's pin passes")
    func rsaLeafPin() throws {
        let handshake = try InMemoryHandshake(
            serverChain: "leaf-rsa.pem", key: "leaf-rsa.key", host: "api.strata.test",
            roots: privateCA)
        try TLSPeerTrust.check(
            handshake.client, host: "api.strata.test", roots: privateCA,
            evaluator: PublicKeyPinningEvaluator(pins: [Fixtures.Pin.leafRSA]))
    }

    @Test("a wrong pin fails with the verified chain's pins in the message")
    func wrongPinFails() throws {
        let handshake = try InMemoryHandshake(
            serverChain: "leaf-ec.pem", key: "leaf-ec.key", host: "localhost",
            roots: privateCA)
        #expect {
            try TLSPeerTrust.check(
                handshake.client, host: "localhost", roots: privateCA,
                evaluator: PublicKeyPinningEvaluator(pins: [wrongPin]))
        } throws: { error in
            let text = String(describing: error)
            return text.contains("\(Fixtures.Pin.leafEC): CN=localhost,O=Strata Tests")
                && text.contains("\(Fixtures.Pin.ca): CN=Strata Test Root CA,O=Strata Tests")
                && text.contains(wrongPin)
        }
    }

    @Test("a forged chain (attacker leaf + genuine CA) fails verification even with the CA pinned")
    func forgedChain() throws {
        let handshake = try InMemoryHandshake(
            serverChain: "forged-chain.pem", key: "attacker-leaf.key",
            host: "localhost", roots: privateCA)
        #expect(handshake.completed == false)
        #expect {
            try TLSPeerTrust.check(
                handshake.client, host: "localhost", roots: privateCA,
                evaluator: PublicKeyPinningEvaluator(pins: [Fixtures.Pin.ca]))
        } throws: { error in
            guard case .untrustedIssuer = error as? ServerTrustError else { return false }
            return true
        }
    }

    @Test(
        "expired, wrong-host and self-signed servers fail with distinct errors",
        arguments: [
            ("expired", "expired"), ("wrong-host", "hostname"), ("self-signed", "selfSigned"),
        ])
    func distinctFailures(fixture: String, expected: String) throws {
        let handshake = try InMemoryHandshake(
            serverChain: "\(fixture).pem", key: "\(fixture).key", host: "localhost",
            roots: privateCA)
        #expect(handshake.completed == false)
        #expect {
            try TLSPeerTrust.chainToEvaluate(on: handshake.client, host: "localhost", roots: privateCA)
        } throws: { error in
            switch (error as? ServerTrustError, expected) {
            case (.certificateExpired?, "expired"), (.hostnameMismatch?, "hostname"), (.selfSignedCertificate?, "selfSigned"):
                true
            default:
                false
            }
        }
    }

    @Test("an IP literal host is verified against the IP SAN and not sent as SNI")
    func ipLiteral() throws {
        let handshake = try InMemoryHandshake(
            serverChain: "leaf-ec.pem", key: "leaf-ec.key", host: "127.0.0.1",
            roots: privateCA)
        #expect(handshake.completed)
        #expect(handshake.serverNameSeen == nil)
        _ = try TLSPeerTrust.chainToEvaluate(on: handshake.client, host: "127.0.0.1", roots: privateCA)
    }

    @Test("system roots do not trust the private CA")
    func systemRoots() throws {
        let handshake = try InMemoryHandshake(
            serverChain: "leaf-ec.pem", key: "leaf-ec.key", host: "localhost",
            roots: .system)
        #expect(handshake.completed == false)
        #expect(throws: ServerTrustError.self) {
            try TLSPeerTrust.chainToEvaluate(on: handshake.client, host: "localhost", roots: .system)
        }
    }

    @Test("pin-only trust accepts a self-signed server whose own key is pinned")
    func pinOnlyAcceptsPinnedKey() throws {
        let pin = try Fixtures.certificate("self-signed").spkiPin
        let handshake = try InMemoryHandshake(
            serverChain: "self-signed.pem", key: "self-signed.key",
            host: "192.168.1.20", roots: .pinnedKeysOnly)
        #expect(handshake.completed)
        try TLSPeerTrust.check(
            handshake.client, host: "192.168.1.20", roots: .pinnedKeysOnly,
            evaluator: PublicKeyPinningEvaluator(pins: [pin]))
    }

    @Test("pin-only trust shows the evaluator only the leaf, so an appended genuine CA cannot match its pin")
    func pinOnlyIgnoresAppendedCertificates() throws {
        let handshake = try InMemoryHandshake(
            serverChain: "forged-chain.pem", key: "attacker-leaf.key",
            host: "localhost", roots: .pinnedKeysOnly)
        #expect(handshake.completed)
        #expect(
            throws: ServerTrustError.pinMismatch(
                host: "localhost", chain: [try Fixtures.certificate("attacker-leaf")],
                pins: [Fixtures.Pin.ca])
        ) {
            try TLSPeerTrust.check(
                handshake.client, host: "localhost", roots: .pinnedKeysOnly,
                evaluator: PublicKeyPinningEvaluator(pins: [Fixtures.Pin.ca]))
        }
    }
}
