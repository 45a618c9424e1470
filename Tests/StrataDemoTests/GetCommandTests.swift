import Foundation
import Testing

/// `strata-demo get`, run as a subprocess against the sandbox API started in the test process.
// Serialized: one child process at a time keeps the load off the timing-sensitive suites running alongside.
@Suite("strata-demo get (subprocess)", .serialized)
struct GetCommandTests {
    static let list = #"[{"id":1,"title":"Buy milk"},{"id":2,"title":"Write the tour"},{"id":3,"title":"Rotate the pins"}]"#

    @Test("a pinned GET with the CA and a token prints the body on stdout, nothing on stderr, and exits 0")
    func pinnedGet() async throws {
        let server = try RunningSandbox()
        let run = try await DemoProcess.run(["get", server.url("/v1/todos"), "--pin", server.pin] + server.trusted)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(run.standardOutput == Self.list)
        #expect(run.standardError.isEmpty)
    }

    @Test("a pin mismatch exits 1, sends nothing, and prints the served chain's pins ready to paste")
    func pinMismatch() async throws {
        let server = try RunningSandbox()
        let wrong = "sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
        let run = try await DemoProcess.run(["get", server.url("/v1/todos"), "--pin", wrong] + server.trusted)
        #expect(run.status == 1)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError.hasPrefix("Error: "))
        #expect(run.standardError.contains("Certificate pinning failure for localhost!"))
        #expect(run.standardError.contains("\(server.pin): CN=localhost,O=Strata Sandbox"))
        #expect(run.standardError.contains("\(server.caPin): CN=Strata Sandbox CA,O=Strata Sandbox"))
        #expect(server.sandbox.server.connectionCount == 1)
        #expect(server.sandbox.seen.unauthorized == 0, "no request reached the sandbox")
    }

    @Test("a 404 exits 22 as curl --fail does, writes no body, and quotes the API's error")
    func notFound() async throws {
        let server = try RunningSandbox()
        let run = try await DemoProcess.run(["get", server.url("/v1/nothing")] + server.trusted)
        #expect(run.status == 22)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError == #"Error: GET \#(server.url("/v1/nothing")) answered 404 Not Found: {"error":"not_found"}."# + "\n")
    }

    @Test("with --etag-dir the second run is answered 304 and served from the store, with the same body")
    func revalidatesFromTheStore() async throws {
        let server = try RunningSandbox()
        let store = try DemoProcess.temporaryDirectory().appendingPathComponent("etags").path
        let arguments = ["get", server.url("/v1/todos"), "--etag-dir", store] + server.trusted
        let first = try await DemoProcess.run(arguments)
        #expect(first.status == 0)
        #expect(first.standardError.isEmpty)
        let second = try await DemoProcess.run(arguments + ["--json-events"])
        #expect(second.status == 0)
        #expect(second.standardOutput == first.standardOutput)
        #expect(second.standardOutput == Self.list)
        #expect(second.standardError.contains("304 Not Modified: \(Self.list.utf8.count) bytes served from the ETag store in \(store)"))
        #expect(second.standardError.contains(#""event":"etag.revalidated""#))
        #expect(server.sandbox.seen.notModified == 1)
    }

    @Test("--json-events writes one JSON object per event on stderr, the token in none")
    func jsonEvents() async throws {
        let server = try RunningSandbox()
        let run = try await DemoProcess.run(["get", server.url("/v1/health"), "--pin", server.pin, "--json-events"] + server.trusted)
        #expect(run.status == 0)
        let events = try run.standardError.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        let names = events.compactMap { $0["event"] as? String }
        #expect(names.contains("pinning.connection-opened"))
        #expect(names.contains("pinning.trust-evaluated"))
        #expect(names.contains("retry.scheduled"), "the sandbox's health check answers 503 once")
        #expect(events.allSatisfy { $0["request"] is String && $0["attempt"] is Int })
        #expect(!run.standardError.contains(server.sandbox.validToken))
    }

    @Test("-v shows the request head with the token redacted, the events and the response head; -i puts the head on stdout")
    func heads() async throws {
        let server = try RunningSandbox()
        let run = try await DemoProcess.run(["get", server.url("/v1/todos/2"), "-v", "-i", "-H", "X-Trace: 7"] + server.trusted)
        #expect(run.status == 0)
        #expect(run.standardError.contains("> GET \(server.url("/v1/todos/2"))\n"))
        #expect(run.standardError.contains("> Authorization: Bearer <redacted>\n"))
        #expect(run.standardError.contains("> X-Trace: 7\n"))
        #expect(run.standardError.contains("* opened a TLSv1.3 connection to localhost:"))
        #expect(run.standardError.contains("< HTTP 200 OK\n< Content-Type: application/json\n"))
        #expect(run.standardOutput.hasPrefix("HTTP 200 OK\nContent-Type: application/json\n"))
        #expect(run.standardOutput.hasSuffix("\n\n" + #"{"id":2,"title":"Write the tour"}"#))
        #expect(!run.standardError.contains(server.sandbox.validToken))
        #expect(!run.standardOutput.contains(server.sandbox.validToken))
    }

    @Test("-X and --data @file send the file's bytes; -o writes the body to a file instead of stdout")
    func postsAFileAndSavesTheBody() async throws {
        let server = try RunningSandbox()
        let directory = try DemoProcess.temporaryDirectory()
        try #"{"title":"Ship the CLI"}"#.write(to: directory.appendingPathComponent("todo.json"), atomically: true, encoding: .utf8)
        let run = try await DemoProcess.run(
            [
                "get", server.url("/v1/todos"), "-X", "POST", "--data", "@todo.json",
                "-o", "created.json",
            ] + server.trusted, directory: directory)
        #expect(run.status == 0, "stderr: \(run.standardError)")
        #expect(run.standardOutput.isEmpty)
        let saved = try String(contentsOf: directory.appendingPathComponent("created.json"), encoding: .utf8)
        #expect(saved == #"{"id":4,"title":"Ship the CLI"}"#)
    }

    @Test("--retries 0 gives up on the first 503 and exits 22")
    func noRetries() async throws {
        let server = try RunningSandbox()
        let run = try await DemoProcess.run(["get", server.url("/v1/health"), "--retries", "0"] + server.trusted)
        #expect(run.status == 22)
        #expect(run.standardError.hasPrefix("Error: GET \(server.url("/v1/health")) answered 503 Service Unavailable"))
        #expect(server.sandbox.seen.healthCalls == 1)
    }

    @Test("--timeout gives up on a response that takes longer, exits 1 and says so")
    func timesOut() async throws {
        let server = try RunningSandbox()
        let run = try await DemoProcess.run(["get", server.url("/v1/export"), "--timeout", "0.2"] + server.trusted)
        #expect(run.status == 1)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError == "Error: The response did not complete within 0.2 s (--timeout).\n")
    }

    @Test(
        "files that cannot be used exit 1 with the path and the reason, before anything is sent",
        arguments: [
            (["--data", "@missing.json"], "Error: Cannot read 'missing.json' (--data): no such file."),
            (["--ca", "missing.pem"], "Error: Cannot read 'missing.pem' (--ca): no such file."),
            (["--ca", "."], "Error: Cannot read '.' (--ca): it is a directory."),
            (
                ["--ca", "key.pem"],
                "Error: Cannot read 'key.pem' (--ca): it holds no usable certificate: "
                    + "No CERTIFICATE block found (found: PRIVATE KEY); a key is not a certificate."
            ),
        ])
    func unusableFiles(options: [String], message: String) async throws {
        let server = try RunningSandbox()
        let directory = try DemoProcess.temporaryDirectory()
        try "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
            .write(to: directory.appendingPathComponent("key.pem"), atomically: true, encoding: .utf8)
        let run = try await DemoProcess.run(["get", server.url("/v1/todos")] + options, directory: directory)
        #expect(run.status == 1)
        #expect(run.standardError == message + "\n")
        #expect(server.sandbox.server.connectionCount == 0)
    }

    @Test("an --etag-dir that cannot be created and an -o file that cannot be written exit 1 with the reason")
    func unwritablePaths() async throws {
        let server = try RunningSandbox()
        let directory = try DemoProcess.temporaryDirectory()
        try Data().write(to: directory.appendingPathComponent("file"))
        let store = try await DemoProcess.run(
            ["get", server.url("/v1/todos"), "--etag-dir", "file/etags"] + server.trusted,
            directory: directory)
        #expect(store.status == 1)
        #expect(store.standardError.hasPrefix("Error: FileETagStore cannot use "))
        let output = try await DemoProcess.run(
            ["get", server.url("/v1/todos"), "-o", "no/such/dir/out.json"] + server.trusted,
            directory: directory)
        #expect(output.status == 1)
        #expect(output.standardError.hasPrefix("Error: Cannot write 'no/such/dir/out.json': "))
    }

    @Test("a refused connection exits 1 and names the URL")
    func refusedConnection() async throws {
        let port = try RunningSandbox().sandbox.server.port // released at once: nothing listens there now
        let run = try await DemoProcess.run(["get", "http://127.0.0.1:\(port)/", "--retries", "0"])
        #expect(run.status == 1)
        #expect(run.standardError.hasPrefix("Error: GET http://127.0.0.1:\(port)/"))
    }

    @Test(
        "usage errors exit 64 with the message, the usage line and where the help is",
        arguments: [
            (["get", "not a url"], "Error: 'not a url' is not an http or https URL; write it as https://host[:port]/path."),
            (
                ["get", "https://localhost/", "--pin", "sha256/AAAA"],
                "Error: Malformed pin 'sha256/AAAA': decodes to 3 bytes; a SHA-256 pin is 32 bytes."
            ),
            (["get", "https://localhost/", "--frobnicate"], "Error: Unknown option '--frobnicate'."),
        ])
    func usageErrors(arguments: [String], message: String) async throws {
        let run = try await DemoProcess.run(arguments)
        #expect(run.status == 64)
        #expect(run.standardOutput.isEmpty)
        #expect(
            run.standardError
                == "\(message)\nUsage: strata-demo get <url> [options]\n  See 'strata-demo get --help' for more information.\n")
    }

    @Test("--help exits 0 and prints the overview, every option and the exit statuses")
    func help() async throws {
        let run = try await DemoProcess.run(["get", "--help"])
        #expect(run.status == 0)
        #expect(run.standardOutput.hasPrefix("OVERVIEW: Sends one request through the recommended stack"))
        for option in [
            "--pin <sha256/…>", "--ca <file>", "-H, --header", "-X, --request", "-d, --data <text|@file>", "--token",
            "--etag-dir <dir>", "--retries <n>", "--timeout <seconds>", "-o, --output <file>", "--json-events",
            "-v, --verbose", "-i, --include", "EXIT STATUS:",
        ] {
            #expect(run.standardOutput.contains(option))
        }
        #expect(run.standardError.isEmpty)
    }
}
