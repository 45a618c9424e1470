import Foundation
import Testing
import TestTraits

/// The built `strata-demo` needs nothing from this checkout: no fixture file, no test target.
@Suite("strata-demo stands on its own", .onOwnThread)
struct StandaloneBinaryTests {
    @Test("copied out of the build folder, it runs its tour from an unrelated directory")
    func runsFromAnywhere() async throws {
        let home = try DemoProcess.temporaryDirectory()
        let copy = home.appendingPathComponent("strata-demo")
        try FileManager.default.copyItem(at: DemoProcess.builtExecutable, to: copy)
        let elsewhere = try DemoProcess.temporaryDirectory()
        let run = try await DemoProcess.run(["tour"], directory: elsewhere, executable: copy)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(run.standardOutput.contains("(TLS with a private CA generated at startup)"))
        #expect(run.standardOutput.contains("Certificate pinning failure for localhost!"))
        #expect(run.standardOutput.contains("Done in "))
        #expect(run.standardError.isEmpty)
        try? FileManager.default.removeItem(at: home)
    }

    @Test("the binary names no fixture file and carries no private key")
    func carriesNoTestMaterial() throws {
        let binary = try Data(contentsOf: DemoProcess.builtExecutable)
        for marker in ["Fixtures/Pinning", "PRIVATE KEY-----", "TLSLoopbackServer", "LoopbackHTTPServer"] {
            #expect(binary.range(of: Data(marker.utf8)) == nil, "the binary contains '\(marker)'")
        }
    }
}
