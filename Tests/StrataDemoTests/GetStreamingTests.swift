import Dispatch
import Foundation
import Strata
@testable import StrataDemoKit
import Testing
import TestServer
import TLSTestServer

/// `strata-demo get` streams: the body reaches standard output (or the `-o` file) as it arrives,
/// decoded when compressed unless `--raw`. Against the TLS loopback server with the fixture CA
/// (`--ca`), so the request goes through `PinningTransport`.
@Suite("strata-demo get streams and decodes (subprocess and in process)", .serialized)
struct GetStreamingTests {
    static let caFile = TLSLoopbackServer.fixtures.appendingPathComponent("ca.pem").path
    static let codingFixtures = TLSLoopbackServer.fixtures.deletingLastPathComponent().appendingPathComponent("ContentCoding")
    // Bytes, not Data: a Data held by a static is invisible to LeakSanitizer (its storage pointer
    // sits in an enum payload), which then reports it as leaked at exit.
    static let json = [UInt8](try! Data(contentsOf: codingFixtures.appendingPathComponent("todos.json")))
    static let gzip = [UInt8](try! Data(contentsOf: codingFixtures.appendingPathComponent("todos.json.gz")))

    static func server() throws -> TLSLoopbackServer {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route(
            "/todos",
            response: .init(
                headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")],
                body: Data(gzip)))
        return server
    }

    @Test("the first bytes reach standard output while the server still holds the rest")
    func streamsToStandardOutput() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        let gate = DispatchSemaphore(value: 0)
        server.http.route(
            "/drip",
            response: .streamed(headers: [("Transfer-Encoding", "chunked")]) { write in
                _ = write(Data("b\r\nfirst-part\n\r\n".utf8))
                // The rest only once the test saw the first part on the demo's stdout (or after 30 s,
                // so a demo that buffers fails the test rather than hangs it).
                _ = gate.wait(timeout: .now() + 30)
                _ = write(Data("5\r\nrest\n\r\n0\r\n\r\n".utf8))
            })
        let demo = try DemoProcess(["get", server.url("/drip").absoluteString, "--ca", Self.caFile])
        let sawFirst = await demo.waitForOutput(containing: "first-part")
        let before = demo.standardOutput
        gate.signal()
        let run = await demo.finished()
        #expect(sawFirst)
        #expect(!before.contains("rest"), "the first part arrived with the rest: the body was not streamed")
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput == "first-part\nrest\n")
    }

    @Test("a gzip body is decoded by default; --raw keeps the coded bytes and -i shows their Content-Encoding")
    func decodesUnlessRaw() async throws {
        let server = try Self.server()
        let decoded = try await DemoProcess.run(["get", server.url("/todos").absoluteString, "--ca", Self.caFile])
        #expect(decoded.status == 0)
        #expect(decoded.standardOutput == String(decoding: Self.json, as: UTF8.self))

        let directory = try DemoProcess.temporaryDirectory()
        let file = directory.appendingPathComponent("raw.gz")
        let raw = try await DemoProcess.run([
            "get", server.url("/todos").absoluteString, "--ca", Self.caFile, "--raw",
            "-o", file.path,
        ])
        #expect(raw.status == 0, "\(raw.standardError)")
        #expect(try [UInt8](Data(contentsOf: file)) == Self.gzip)
        let head = try await DemoProcess.run([
            "get", server.url("/todos").absoluteString, "--ca", Self.caFile, "--raw", "-i",
            "-o", directory.appendingPathComponent("with-head").path,
        ])
        #expect(head.status == 0)
        let saved = try Data(contentsOf: directory.appendingPathComponent("with-head"))
        #expect(String(decoding: saved.prefix(200), as: UTF8.self).contains("Content-Encoding: gzip"))
        let sent = server.http.requests.map { $0.header("Accept-Encoding") }
        #expect(sent.count == 3)
        #expect(sent.allSatisfy { $0?.hasPrefix("gzip, deflate") == true })
    }

    @Test("-o writes the decoded body into place and says so on a terminal")
    func outputFile() async throws {
        let server = try Self.server()
        let file = try DemoProcess.temporaryDirectory().appendingPathComponent("todos.json")
        let captured = CapturedOutput()
        var output = captured.output
        output.terminal = Terminal(outputIsTerminal: false, errorIsTerminal: true, noColor: true)
        let status = await StrataDemo.run(
            ["get", server.url("/todos").absoluteString, "--ca", Self.caFile, "-o", file.path],
            output: output)
        #expect(status == 0, "\(captured.error)")
        #expect(try [UInt8](Data(contentsOf: file)) == Self.json)
        #expect(captured.error.hasSuffix("Saved \(Self.json.count) bytes to \(file.path)."), "\(captured.error)")
        #expect(captured.standard.isEmpty)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
        #expect(leftovers == ["todos.json"], "no temporary file is left behind")
    }

    @Test("--events prints each server-sent event as a JSON line and reconnects with Last-Event-ID until a 204")
    func events() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/feed") { request in
            // The first connection sends two events (the second's data on two lines) and ends;
            // the reconnect, which must say where it stopped, gets one more, then a 204 ends it.
            switch request.header("Last-Event-ID") {
            case nil:
                return .init(
                    headers: [("Content-Type", "text/event-stream")],
                    text: "retry: 1\nid: 1\ndata: first\n\nevent: note\nid: 2\ndata: two\ndata: lines\n\n")
            case "2":
                return .init(headers: [("Content-Type", "text/event-stream")], text: "id: 3\ndata: \u{1B}[31mred\n\n")
            default:
                return .init(status: 204)
            }
        }
        let run = try await DemoProcess.run(["get", server.url("/feed").absoluteString, "--ca", Self.caFile, "--events"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.standardOutput == """
                {"data":"first","event":"message","id":"1","retry":1}
                {"data":"two\\nlines","event":"note","id":"2","retry":1}
                {"data":"\\u001b[31mred","event":"message","id":"3","retry":1}

                """)
        #expect(server.http.requests.map { $0.header("Last-Event-ID") } == [nil, "2", "3"])
        #expect(server.http.requests.allSatisfy { $0.header("Accept") == "text/event-stream" })
    }

    @Test("--events with -o is a usage error: events are printed, one per line")
    func eventsAreNotSaved() async {
        let captured = CapturedOutput()
        #expect(await StrataDemo.run(["get", "https://127.0.0.1:1/", "--events", "-o", "x"], output: captured.output) == 64)
        #expect(captured.error.contains("--events prints each event as a line; it cannot be combined with --output"))
    }

    @Test("--raw with an http URL is a usage error: URLSession would decode the body anyway")
    func rawNeedsHTTPS() async {
        let captured = CapturedOutput()
        #expect(await StrataDemo.run(["get", "http://127.0.0.1:1/", "--raw"], output: captured.output) == 64)
        #expect(captured.error.contains("--raw needs an https URL"))
    }
}
