import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `strata-demo sandbox`, run as a subprocess in the foreground, as the demo article uses it.
// Serialized: one child process at a time keeps the load off the timing-sensitive suites running alongside.
@Suite("strata-demo sandbox (subprocess)", .serialized)
struct SandboxCommandTests {
    /// What the sandbox printed for its clients.
    struct Banner {
        let baseURL: String
        let caFile: String
        let leafPin: String
        let token: String
        /// The first `strata-demo get` command under "Try:", split into arguments.
        let firstExample: [String]

        init(_ text: String) throws {
            let lines = text.split(separator: "\n").map(String.init)
            func value(after prefix: String) throws -> String {
                let line = try #require(lines.first { $0.hasPrefix(prefix) }, "no line starts with '\(prefix)' in:\n\(text)")
                return String(line.dropFirst(prefix.count).split(separator: " ")[0])
            }
            /// The first pin line is the leaf's: `  sha256/…=: CN=localhost,…`.
            let pinLine = try #require(lines.first { $0.hasPrefix("  sha256/") })
            leafPin = String(pinLine.dropFirst(2).prefix { $0 != ":" })
            baseURL = try value(after: "Strata sandbox API: ")
            caFile = try value(after: "CA certificate: ")
            token = try value(after: "Access token:  ")
            let tryIndex = try #require(lines.firstIndex(of: "Try:"))
            firstExample = lines[tryIndex + 1].split(separator: " ").map(String.init)
        }
    }

    @Test("prints its URL, CA file, pins and token; the printed get command works; SIGTERM stops it and removes the CA file")
    func servesUntilTerminated() async throws {
        let sandbox = try DemoProcess(["sandbox"])
        #expect(await sandbox.waitForOutput(containing: "Stop with Ctrl-C."))
        let banner = try Banner(sandbox.standardOutput)
        #expect(banner.baseURL.hasPrefix("https://localhost:") && banner.baseURL.hasSuffix("/v1"))
        #expect(FileManager.default.fileExists(atPath: banner.caFile))

        #expect(banner.firstExample.prefix(2) == ["strata-demo", "get"])
        let example = try await DemoProcess.run(Array(banner.firstExample.dropFirst()), directory: try DemoProcess.temporaryDirectory())
        #expect(example.status == 0, "stderr: \(example.standardError)")
        #expect(example.standardOutput.hasPrefix(#"[{"id":1,"title":"Buy milk"}"#))
        #expect(example.standardError.contains("* pin check for localhost passed, matched \(banner.leafPin)"))

        sandbox.send(SIGTERM)
        let result = await sandbox.finished()
        #expect(result.status == 0)
        #expect(result.standardError == "Stopped by SIGTERM; removed \(banner.caFile).\n")
        #expect(!FileManager.default.fileExists(atPath: banner.caFile))
        #expect(!FileManager.default.fileExists(atPath: URL(fileURLWithPath: banner.caFile).deletingLastPathComponent().path))
    }

    @Test("--port and --write-ca fix the address and the CA file, which stays after Ctrl-C (SIGINT)")
    func fixedPortAndCAFile() async throws {
        let directory = try DemoProcess.temporaryDirectory()
        let port = try RunningSandbox().sandbox.server.port // free again once released
        let sandbox = try DemoProcess(["sandbox", "--port", "\(port)", "--write-ca", "ca.pem"], directory: directory)
        #expect(await sandbox.waitForOutput(containing: "Stop with Ctrl-C."))
        let banner = try Banner(sandbox.standardOutput)
        #expect(banner.baseURL == "https://localhost:\(port)/v1")
        #expect(banner.caFile == "ca.pem")
        let pins = try await DemoProcess.run(["pin", "localhost:\(port)", "--ca", "ca.pem"], directory: directory)
        #expect(pins.status == 0)
        #expect(pins.standardOutput.hasPrefix("\(banner.leafPin): CN=localhost,O=Strata Sandbox\n"))

        sandbox.send(SIGINT)
        let result = await sandbox.finished()
        #expect(result.status == 0)
        #expect(result.standardError == "Stopped by SIGINT.\n")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("ca.pem").path))
    }

    @Test("a port already in use exits 1 and says so")
    func portInUse() async throws {
        let taken = try RunningSandbox()
        let port = taken.sandbox.server.port
        let result = try await DemoProcess.run(["sandbox", "--port", "\(port)"])
        #expect(result.status == 1)
        #expect(
            result.standardError == "Error: Port \(port) on 127.0.0.1 is already in use. Stop what listens there, "
                + "or choose another port.\n")
    }

    @Test("--help exits 0 and lists the routes")
    func help() async throws {
        let result = try await DemoProcess.run(["sandbox", "--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("GET /v1/todos"))
        #expect(result.standardOutput.contains("--write-ca <file>"))
    }
}
