import Foundation
@testable import StrataDemoKit
import Testing
import TestServer

@Suite("strata-demo pin")
struct PinCommandTests {
    /// The fixtures' known answers (Tests/Fixtures/Pinning/pins.txt): leaf-via-intermediate,
    /// intermediate, ca.
    static let expectedChain = [
        "sha256/SXhunlb4Skq04pVBZtV/ke2QTEiKHg4HDYzyOatcyNc=: CN=localhost via intermediate,O=Strata Tests",
        "sha256/5Xs1K3Xh32Soxmo5iX33CZuqFaYaEcRBb1W6Ivbouns=: CN=Strata Test Intermediate CA,O=Strata Tests",
        "sha256/yIxaZTUrxHs5GSGHHlTW6UJ9tDef4/z+FjTuIAhRM1I=: CN=Strata Test Root CA,O=Strata Tests",
    ]

    @Test("against the sandbox with --ca, prints the verified chain's pins leaf first, and sends no request")
    func printsVerifiedChain() async throws {
        let sandbox = try Sandbox()
        let captured = CapturedOutput()
        let status = await StrataDemo.run(["pin", sandbox.target.description, "--ca", Sandbox.caFile.path],
                                          output: captured.output)
        #expect(status == 0, "stderr: \(captured.error)")
        #expect(captured.standardLines == Self.expectedChain)
        #expect(captured.error.contains("PublicKeyPinningEvaluator(pins:)"))
        #expect(sandbox.server.http.requestCount == 0)
    }

    @Test("without --ca the sandbox's private CA is not trusted: exit 1 and a hint to pass --ca")
    func untrustedWithoutCA() async throws {
        let sandbox = try Sandbox()
        let captured = CapturedOutput()
        let status = await StrataDemo.run(["pin", sandbox.target.description], output: captured.output)
        #expect(status == 1)
        #expect(captured.standard.isEmpty)
        #expect(captured.error.hasPrefix("Error: The certificate chain of localhost does not lead to a trusted root"))
        #expect(captured.error.contains("pass its certificate with --ca <pem-file>"))
    }

    @Test("a host that does not resolve fails with exit 1 and says so")
    func unresolvableHost() async {
        let captured = CapturedOutput()
        // RFC 6761 §6.4: .invalid names never resolve, online or off.
        let status = await StrataDemo.run(["pin", "strata-demo.invalid"], output: captured.output)
        #expect(status == 1)
        #expect(captured.error.hasPrefix("Error: Cannot connect to strata-demo.invalid:443: the host name does not resolve"))
    }

    @Test("a refused connection fails with exit 1 and names the host and port")
    func refusedConnection() async throws {
        let refusing = try RefusingPort()
        let captured = CapturedOutput()
        let status = await StrataDemo.run(["pin", "127.0.0.1:\(refusing.port)"], output: captured.output)
        #expect(status == 1)
        #expect(captured.error.hasPrefix("Error: Cannot connect to 127.0.0.1:\(refusing.port) ("))
    }

    @Test("an unreadable --ca file fails with exit 1 before any connection")
    func unreadableCAFile() async {
        let captured = CapturedOutput()
        let status = await StrataDemo.run(["pin", "localhost:1", "--ca", "/nonexistent/ca.pem"], output: captured.output)
        #expect(status == 1)
        #expect(captured.error == "Error: Cannot use the CA file '/nonexistent/ca.pem': no readable UTF-8 text file is there.")
    }
}
