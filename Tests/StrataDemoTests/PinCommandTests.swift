import Foundation
@testable import StrataDemoKit
import StrataPinning
import Testing

// Serialized: one child process at a time keeps the load off the timing-sensitive suites running alongside.
@Suite("strata-demo pin", .serialized)
struct PinCommandTests {
    /// Tests/Fixtures/Pinning, whose pins are listed in its pins.txt.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Pinning")

    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    // MARK: - A host (subprocess)

    @Test("a host with --ca: the verified chain's pins leaf first, each with its expiry, a warning for each expiring soon")
    func printsVerifiedChain() async throws {
        let server = try RunningSandbox()
        let run = try await DemoProcess.run(["pin", "localhost:\(server.sandbox.server.port)", "--ca", server.caFile])
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines.first == "\(server.pin): CN=localhost,O=Strata Sandbox")
        #expect(lines.dropFirst(2).first == "\(server.caPin): CN=Strata Sandbox CA,O=Strata Sandbox")
        #expect(lines[1].hasPrefix("    valid until ") && lines[1].hasSuffix(": expires in less than a day"))
        #expect(
            run.standardError.hasPrefix(
                "Verified chain of localhost:\(server.sandbox.server.port), leaf first; "
                    + "paste the pins into PublicKeyPinningEvaluator(pins:):\n"))
        #expect(run.standardError.contains("Warning: CN=localhost,O=Strata Sandbox expires in less than a day ("))
        #expect(server.sandbox.server.connectionCount == 1)
        #expect(server.sandbox.seen.unauthorized == 0, "the probe sends no request")
    }

    @Test("without --ca the sandbox's private CA is not trusted: exit 1 and a hint to pass --ca")
    func untrustedWithoutCA() async throws {
        let server = try RunningSandbox()
        let captured = CapturedOutput()
        let status = await StrataDemo.run(["pin", "localhost:\(server.sandbox.server.port)"], output: captured.output)
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
        let port = try RunningSandbox().sandbox.server.port // released at once: nothing listens there now
        let captured = CapturedOutput()
        let status = await StrataDemo.run(["pin", "127.0.0.1:\(port)"], output: captured.output)
        #expect(status == 1)
        #expect(captured.error.hasPrefix("Error: Cannot connect to 127.0.0.1:\(port) ("))
    }

    // MARK: - Certificate files (subprocess)

    @Test("--cert reads PEM and DER files, puts the leaf first when they form a chain, and --json says so")
    func certificateFilesAsJSON() async throws {
        let server = try RunningSandbox()
        let directory = try DemoProcess.temporaryDirectory()
        try server.sandbox.serverCertificate.der.write(to: directory.appendingPathComponent("leaf.der"))
        let run = try await DemoProcess.run(["pin", "--cert", server.caFile, "leaf.der", "--json"], directory: directory)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        let certificates = try #require(document["certificates"] as? [[String: Any]])
        #expect(document["chain"] as? Bool == true)
        #expect(certificates.compactMap { $0["pin"] as? String } == [server.pin, server.caPin])
        #expect(certificates.compactMap { $0["file"] as? String } == ["leaf.der", server.caFile])
        #expect(certificates.allSatisfy { $0["expiresSoon"] as? Bool == true && $0["daysLeft"] as? Int == 0 })
        #expect(run.standardError.contains("Warning: CN=Strata Sandbox CA,O=Strata Sandbox expires in less than a day"))
    }

    @Test("--cert on a bundle: a chain file comes out leaf first, with its subject and where it came from")
    func bundleFile() async throws {
        let run = try await DemoProcess.run(["pin", "--cert", Self.fixture("leaf-via-intermediate-chain.pem"), Self.fixture("ca.pem")])
        #expect(run.status == 0, "stderr: \(run.standardError)")
        let pins = run.standardOutput.split(separator: "\n").filter { $0.hasPrefix("sha256/") }
        #expect(
            pins == [
                "sha256/SXhunlb4Skq04pVBZtV/ke2QTEiKHg4HDYzyOatcyNc=: CN=localhost via intermediate,O=Strata Tests",
                "sha256/5Xs1K3Xh32Soxmo5iX33CZuqFaYaEcRBb1W6Ivbouns=: CN=Strata Test Intermediate CA,O=Strata Tests",
                "sha256/yIxaZTUrxHs5GSGHHlTW6UJ9tDef4/z+FjTuIAhRM1I=: CN=Strata Test Root CA,O=Strata Tests",
            ])
        #expect(run.standardOutput.contains(", from \(Self.fixture("ca.pem"))"))
        #expect(run.standardError == "These certificates form one chain, shown leaf first:\n")
    }

    @Test("an expired certificate gets a warning, and certificates that form no chain keep their order")
    func expiredAndUnrelated() async throws {
        let run = try await DemoProcess.run(["pin", "--cert", Self.fixture("self-signed.pem"), Self.fixture("expired.pem")])
        #expect(run.status == 0)
        let pins = run.standardOutput.split(separator: "\n").filter { $0.hasPrefix("sha256/") }.map { $0.prefix(51) }
        #expect(pins == ["sha256/j5++jTP3UA3aZnyuZFUxxExfTrMkBpL6y28a+NronzE=", "sha256/4P6OI700zcNY5Ej0Lk+oo8JwhUfNw9NlapjNzXgk9F4="])
        #expect(run.standardError.hasPrefix("Certificates in file order (they do not form one chain):\n"))
        #expect(run.standardError.contains("Warning: CN=expired localhost,O=Strata Tests expired "))
    }

    @Test(
        "a missing file, a directory and a key file exit 1 with the path and the reason",
        arguments: [
            ("missing.pem", "Error: Cannot read 'missing.pem': no such file.\n"),
            (".", "Error: Cannot read '.': it is a directory.\n"),
            (
                "leaf-ec.key",
                "Error: Cannot read 'leaf-ec.key': it holds no usable certificate: "
                    + "No CERTIFICATE block found (found: PRIVATE KEY); a key is not a certificate.\n"
            ),
        ])
    func unusableFiles(file: String, message: String) async throws {
        let run = try await DemoProcess.run(["pin", "--cert", file], directory: Self.fixtures)
        #expect(run.status == 1)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError == message)
    }

    @Test("--help exits 0 and shows both forms")
    func help() async throws {
        let run = try await DemoProcess.run(["pin", "--help"])
        #expect(run.status == 0)
        #expect(
            run.standardOutput.contains(
                "Usage: strata-demo pin <host>[:port] [--ca <file>] [--json]\n       strata-demo pin --cert <file>... [--json]"))
    }

    // MARK: - Ordering and expiry, without I/O

    @Test("a chain given in any order comes out leaf first; a gap or a second leaf keeps the given order")
    func chainOrder() throws {
        let chain = try CertificateFile.read(Self.fixture("leaf-via-intermediate-chain.pem")) + CertificateFile.read(Self.fixture("ca.pem"))
        let (leaf, intermediate, root) = (chain[0], chain[1], chain[2])
        #expect(ChainOrder.leafFirst([root, leaf, intermediate]) == ([leaf, intermediate, root], true))
        #expect(ChainOrder.leafFirst([root, leaf, root, intermediate]) == ([leaf, intermediate, root], true), "repeats dropped")
        #expect(ChainOrder.leafFirst([root, leaf]) == ([root, leaf], false), "the intermediate is missing")
        let other = try CertificateFile.read(Self.fixture("leaf-ec.pem"))[0]
        #expect(ChainOrder.leafFirst([other, leaf, intermediate, root]).isChain == false, "two leaves")
        #expect(ChainOrder.leafFirst([leaf]) == ([leaf], false))
    }

    @Test("the warning starts 30 days before expiry and reads in whole days")
    func expiryWarnings() throws {
        let certificate = try CertificateFile.read(Self.fixture("leaf-ec.pem"))[0]
        let day: TimeInterval = 86_400
        func report(daysBefore days: Double) -> CertificateReport {
            CertificateReport(
                entries: [.init(certificate: certificate, file: nil)], isChain: false,
                now: certificate.notAfter.addingTimeInterval(-days * day))
        }
        #expect(report(daysBefore: 30.5).warnings.isEmpty)
        #expect(
            report(daysBefore: 29.5).warnings == [
                "\(certificate.subject) expires in 29 days (\(Self.iso(certificate.notAfter))); replace it before you rely on it."
            ])
        #expect(report(daysBefore: 1.2).daysLeft(certificate) == 1)
        #expect(report(daysBefore: -2.5).warnings.first?.contains("expired 2 days ago") == true)
    }

    private static func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }
}
