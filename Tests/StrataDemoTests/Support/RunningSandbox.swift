import Foundation
import StrataPinning
import StrataSandbox

/// The sandbox API started in the test process, with its CA written to a file so a `strata-demo`
/// subprocess can pass it to `--ca`.
struct RunningSandbox {
    let sandbox: Sandbox
    /// The CA certificate's PEM file.
    let caFile: String
    /// The pin of the server certificate's key.
    let pin: String
    /// The pin of the CA's key.
    let caPin: String

    init() throws {
        sandbox = try Sandbox()
        let directory = try DemoProcess.temporaryDirectory()
        caFile = directory.appendingPathComponent("ca.pem").path
        try sandbox.caCertificate.pem.write(toFile: caFile, atomically: true, encoding: .utf8)
        pin = try Certificate(der: sandbox.serverCertificate.der).spkiPin
        caPin = try Certificate(der: sandbox.caCertificate.der).spkiPin
    }

    /// `https://localhost:<port><path>`.
    func url(_ path: String) -> String { sandbox.server.url(path).absoluteString }

    /// `--ca <file> --token <valid token>`: what every authorized request passes.
    var trusted: [String] { ["--ca", caFile, "--token", sandbox.validToken] }
}
