import Foundation
import StrataPinning
import TLSTestServer
import TestSupport

/// The committed test certificates (Tests/Fixtures/Pinning) every TLS scenario uses: a private
/// CA, and an EC leaf for `localhost` pinned by its public key.
enum BenchFixtures {
    static let directory = TLSLoopbackServer.fixtures
    static let caFile = directory.appendingPathComponent("ca.pem")
    static let leafFile = directory.appendingPathComponent("leaf-ec.pem")
    static let leafKeyFile = directory.appendingPathComponent("leaf-ec.key")

    /// The leaf's SPKI pin, `sha256/<base64>`.
    static func leafPin() throws -> String {
        try Certificate(pem: String(contentsOf: leafFile, encoding: .utf8)).spkiPin
    }

    /// A PinningTransport that trusts the fixture CA and pins the leaf's key for `localhost`.
    static func pinningTransport(maxConnectionsPerHost: Int, httpVersion: HTTPVersionPolicy = .http1Only) throws -> PinningTransport {
        let ca = try Certificate(pem: String(contentsOf: caFile, encoding: .utf8))
        return try PinningTransport.validated(
            pinnedDomains: ["localhost": PublicKeyPinningEvaluator(pins: [SPKIPin(leafPin())])],
            trustRoots: .certificates([ca]),
            configuration: .init(
                maxConnectionsPerHost: maxConnectionsPerHost,
                httpVersion: httpVersion))
    }

    /// The installed nginx's version, as `nginx -v` prints it (`1.22.1`); blocks while it runs.
    static func nginxVersion() -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: NginxServer.executable)
        process.arguments = ["-v"]
        let pipe = Pipe()
        process.standardError = pipe
        guard (try? process.run()) != nil else { return "" }
        process.waitForExit()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return text.split(separator: "/").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
    }
}
