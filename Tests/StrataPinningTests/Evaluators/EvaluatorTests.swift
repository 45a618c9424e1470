import Foundation
@testable import StrataPinning
import Testing

@Suite("Trust evaluators")
struct EvaluatorTests {
    let chain: [Certificate]
    let wrongPin = "sha256/" + Data(repeating: 0, count: 32).base64EncodedString()

    init() throws {
        chain = [try Fixtures.certificate("leaf-ec"), try Fixtures.certificate("ca")]
    }

    @Test("a public-key pin of the leaf passes")
    func leafPinPasses() throws {
        try PublicKeyPinningEvaluator(pins: [Fixtures.Pin.leafEC]).evaluate(chain, forHost: "localhost")
    }

    @Test("a public-key pin of the CA passes")
    func caPinPasses() throws {
        try PublicKeyPinningEvaluator(pins: [wrongPin, Fixtures.Pin.ca]).evaluate(chain, forHost: "localhost")
    }

    @Test("no matching pin fails with a pin mismatch")
    func mismatchFails() throws {
        let evaluator = try PublicKeyPinningEvaluator(pins: [wrongPin])
        #expect(throws: ServerTrustError.pinMismatch(host: "localhost", chain: chain, pins: [wrongPin])) {
            try evaluator.evaluate(chain, forHost: "localhost")
        }
    }

    @Test("the mismatch message lists every chain certificate as pin: subject, then the pins (OkHttp layout)")
    func mismatchMessage() {
        let error = ServerTrustError.pinMismatch(host: "api.strata.test", chain: chain, pins: [wrongPin, Fixtures.Pin.ca])
        #expect(
            error.description == """
                Certificate pinning failure for api.strata.test!
                  Peer certificate chain:
                    \(Fixtures.Pin.leafEC): CN=localhost,O=Strata Tests
                    \(Fixtures.Pin.ca): CN=Strata Test Root CA,O=Strata Tests
                  Pinned certificates for api.strata.test:
                    \(wrongPin)
                    \(Fixtures.Pin.ca)
                """)
    }

    @Test("a single pin is accepted by default")
    func singlePinAccepted() throws {
        #expect(try PublicKeyPinningEvaluator(pins: [Fixtures.Pin.leafEC]).pins.count == 1)
    }

    @Test("the strict option requires a backup pin: one pin, or the same pin twice, is refused")
    func strictNeedsBackup() throws {
        #expect(throws: PinningConfigurationError.missingBackupPin(Fixtures.Pin.leafEC)) {
            try PublicKeyPinningEvaluator(pins: [Fixtures.Pin.leafEC], requiresBackupPin: true)
        }
        #expect(throws: PinningConfigurationError.missingBackupPin(Fixtures.Pin.leafEC)) {
            try PublicKeyPinningEvaluator(
                pins: [Fixtures.Pin.leafEC, "pin-sha256=\"\(Fixtures.Pin.leafEC.dropFirst(7))\""],
                requiresBackupPin: true)
        }
        let strict = try PublicKeyPinningEvaluator(pins: [Fixtures.Pin.leafEC, wrongPin], requiresBackupPin: true)
        try strict.evaluate(chain, forHost: "localhost")
    }

    @Test("no pins and malformed pins are configuration errors")
    func badConfiguration() {
        #expect(throws: PinningConfigurationError.noPins) { try PublicKeyPinningEvaluator(pins: [String]()) }
        #expect(throws: PinningConfigurationError.self) { try PublicKeyPinningEvaluator(pins: ["sha256/short"]) }
    }

    @Test("certificate pinning passes on an identical certificate anywhere in the chain")
    func certificatePinPasses() throws {
        try CertificatePinningEvaluator(certificates: [try Fixtures.certificate("ca")]).evaluate(chain, forHost: "h")
        try CertificatePinningEvaluator(certificates: [try Fixtures.certificate("leaf-ec")]).evaluate(chain, forHost: "h")
    }

    @Test("certificate pinning fails for a different certificate, even one with a pinned subject")
    func certificatePinFails() throws {
        let other = try Fixtures.certificate("attacker-leaf") // also CN=localhost, other key
        let evaluator = CertificatePinningEvaluator(certificates: [other])
        #expect {
            try evaluator.evaluate(chain, forHost: "h")
        } throws: { error in
            guard case let .pinMismatch(_, _, pins) = error as? ServerTrustError else { return false }
            return pins == ["certificate CN=localhost,O=Mallory (key \(Fixtures.Pin.attackerLeaf))"]
        }
        #expect(throws: ServerTrustError.self) { try CertificatePinningEvaluator(certificates: []).evaluate(chain, forHost: "h") }
    }

    @Test("a composite passes only when all of its evaluators pass")
    func composite() throws {
        let keyPin = try PublicKeyPinningEvaluator(pins: [Fixtures.Pin.ca])
        let leafCertificate = CertificatePinningEvaluator(certificates: [try Fixtures.certificate("leaf-ec")])
        try CompositeTrustEvaluator([keyPin, leafCertificate]).evaluate(chain, forHost: "h")

        let failing = try PublicKeyPinningEvaluator(pins: [wrongPin])
        #expect(throws: ServerTrustError.pinMismatch(host: "h", chain: chain, pins: [wrongPin])) {
            try CompositeTrustEvaluator([keyPin, failing, leafCertificate]).evaluate(chain, forHost: "h")
        }
    }
}
