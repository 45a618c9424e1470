import Foundation
@testable import StrataPinning
import Testing

/// Chain and host-name verification with X509_verify_cert, offline, against the fixtures: the
/// checks that always run before any evaluator.
@Suite("Chain verification")
struct ChainVerificationTests {
    let privateCA: X509ChainVerifier

    init() throws {
        privateCA = try X509ChainVerifier(roots: .certificates([try Fixtures.certificate("ca")]))
    }

    @Test("a leaf issued by the trusted CA verifies, and the chain ends at the CA", arguments: ["leaf-ec", "leaf-rsa"])
    func validChain(leaf: String) throws {
        let chain = try privateCA.verify([try Fixtures.certificate(leaf)], host: "localhost")
        #expect(chain.map(\.subject) == [try Fixtures.certificate(leaf).subject, "CN=Strata Test Root CA,O=Strata Tests"])
        #expect(chain.last?.spkiPin == Fixtures.Pin.ca)
    }

    @Test("each SAN of the leaf verifies: DNS names and the IP literal")
    func subjectAlternativeNames() throws {
        let leaf = try Fixtures.certificate("leaf-ec")
        for host in ["localhost", "api.strata.test", "API.Strata.Test", "127.0.0.1"] {
            _ = try privateCA.verify([leaf], host: host)
        }
    }

    @Test("a leaf via an intermediate verifies when the peer sends the intermediate")
    func intermediate() throws {
        let chain = try privateCA.verify(try Fixtures.bundle("leaf-via-intermediate-chain"), host: "localhost")
        #expect(chain.map(\.spkiPin) == [Fixtures.Pin.leafViaIntermediate, Fixtures.Pin.intermediate, Fixtures.Pin.ca])
    }

    @Test("without the intermediate the issuer is unknown")
    func missingIntermediate() throws {
        #expect {
            try privateCA.verify([try Fixtures.certificate("leaf-via-intermediate")], host: "localhost")
        } throws: { error in
            guard case let .untrustedIssuer(_, code, reason) = error as? ServerTrustError else { return false }
            return code == 20 && reason == "unable to get local issuer certificate"
        }
    }

    @Test("an expired leaf fails as certificateExpired with OpenSSL's reason")
    func expired() throws {
        #expect(throws: ServerTrustError.certificateExpired(host: "localhost", code: 10, reason: "certificate has expired")) {
            try privateCA.verify([try Fixtures.certificate("expired")], host: "localhost")
        }
    }

    @Test("a leaf valid only from 2100 fails as certificateNotYetValid")
    func notYetValid() throws {
        #expect(
            throws: ServerTrustError.certificateNotYetValid(
                host: "localhost", code: 9,
                reason: "certificate is not yet valid")
        ) {
            try privateCA.verify([try Fixtures.certificate("not-yet-valid")], host: "localhost")
        }
    }

    @Test("validity is checked at the given time")
    func checkedAtGivenTime() throws {
        let in2200 = Date(timeIntervalSince1970: 7_258_118_400)
        #expect(throws: ServerTrustError.self) {
            try privateCA.verify([try Fixtures.certificate("leaf-ec")], host: "localhost", at: in2200)
        }
    }

    @Test("a leaf for another name fails as hostnameMismatch")
    func wrongHost() throws {
        #expect(throws: ServerTrustError.hostnameMismatch(host: "localhost", code: 62, reason: "hostname mismatch")) {
            try privateCA.verify([try Fixtures.certificate("wrong-host")], host: "localhost")
        }
    }

    @Test("an IP literal the leaf does not name fails as hostnameMismatch")
    func wrongIP() throws {
        #expect(throws: ServerTrustError.hostnameMismatch(host: "127.0.0.2", code: 64, reason: "IP address mismatch")) {
            try privateCA.verify([try Fixtures.certificate("leaf-ec")], host: "127.0.0.2")
        }
    }

    @Test("a self-signed leaf fails as selfSignedCertificate")
    func selfSigned() throws {
        #expect(
            throws: ServerTrustError.selfSignedCertificate(
                host: "localhost", code: 18,
                reason: "self-signed certificate")
        ) {
            try privateCA.verify([try Fixtures.certificate("self-signed")], host: "localhost")
        }
    }

    @Test("a leaf from another CA fails as untrustedIssuer")
    func untrustedIssuer() throws {
        #expect {
            try privateCA.verify([try Fixtures.certificate("attacker-leaf")], host: "localhost")
        } throws: { error in
            guard case .untrustedIssuer = error as? ServerTrustError else { return false }
            return true
        }
    }

    @Test("a forged chain (attacker leaf + the genuine CA appended) does not verify, though its raw list holds the pinned CA")
    func forgedChain() throws {
        let forged = try Fixtures.bundle("forged-chain")
        // A pin check on the raw list the peer sent would pass: this is CVE-2016-2402.
        try PublicKeyPinningEvaluator(pins: [Fixtures.Pin.ca]).evaluate(forged, forHost: "localhost")
        #expect {
            try privateCA.verify(forged, host: "localhost")
        } throws: { error in
            guard case .untrustedIssuer = error as? ServerTrustError else { return false }
            return true
        }
    }

    @Test("the private CA is the only anchor: the system bundle does not vouch for the fixtures, nor the CA for public sites")
    func systemRootsDoNotTrustPrivateCA() throws {
        let system = try X509ChainVerifier(roots: .system)
        #expect(throws: ServerTrustError.self) {
            try system.verify([try Fixtures.certificate("leaf-ec")], host: "localhost")
        }
    }

    @Test("an empty private root list is a configuration error")
    func emptyRoots() {
        #expect(throws: PinningConfigurationError.noTrustedCertificates) {
            try X509ChainVerifier(roots: .certificates([]))
        }
    }

    @Test("pin-only trust builds an empty store and turns chain verification off")
    func pinnedKeysOnly() throws {
        #expect(TrustRoots.pinnedKeysOnly.verifiesChain == false)
        #expect(TrustRoots.system.verifiesChain)
        let verifier = try X509ChainVerifier(roots: .pinnedKeysOnly)
        #expect(throws: ServerTrustError.self) {
            try verifier.verify([try Fixtures.certificate("leaf-ec")], host: "localhost")
        }
    }
}
