import Dispatch
import Foundation
import Strata
@testable import StrataDemoKit
import Testing
import TestServer
import TLSTestServer

/// `strata-demo get` writing what a hostile server sent to a terminal: headers, a body and
/// server-sent events carry ESC sequences, C1 controls (U+009B CSI, U+009D OSC) and DEL, and
/// none reaches the terminal as a control. Run in process with a fake terminal (``Terminal``),
/// against the TLS loopback server with the fixture CA, so the bytes pass through
/// `PinningTransport`'s own HTTP/1.1 parser.
@Suite("strata-demo get on a terminal shows what the server sent escaped", .serialized)
struct GetTerminalTests {
    static let caFile = TLSLoopbackServer.fixtures.appendingPathComponent("ca.pem").path

    /// An OSC retitling the window (ESC ] … BEL, and C1 OSC … C1 ST), a clear screen (ESC [ 2J,
    /// and C1 CSI 2J), DEL, a tab, a CRLF line end and a lone CR that would overwrite "hidden".
    static let hostileBody =
        "title \u{1B}]0;pwned\u{7} and \u{9D}0;pwned\u{9C}\tclear \u{1B}[2J and \u{9B}2J del\u{7F}\r\nhidden\rshown\n"
    static let shownBody =
        #"title \u{1B}]0;pwned\u{7} and \u{9D}0;pwned\u{9C}"# + "\t" + #"clear \u{1B}[2J and \u{9B}2J del\u{7F}"#
        + "\r\n" + #"hidden\u{D}shown"# + "\n"

    /// What a terminal acts on, other than the line feeds, tabs and CRLF line ends kept on purpose.
    static func holdsControls(_ text: String) -> Bool {
        let kept = text.replacingOccurrences(of: "\r\n", with: "\n")
        return kept.unicodeScalars.contains {
            ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value)
        }
    }

    /// Runs `get` with `arguments` after the URL and the CA, standard output and error terminals.
    static func run(
        _ server: TLSLoopbackServer, _ path: String, _ arguments: [String] = [], terminal: Bool = true
    ) async -> (status: Int32, captured: CapturedOutput) {
        let captured = CapturedOutput()
        var output = captured.output
        if terminal { output.terminal = Terminal(outputIsTerminal: true, errorIsTerminal: true, noColor: true) }
        let status = await StrataDemo.run(
            ["get", server.url(path).absoluteString, "--ca", caFile] + arguments, output: output)
        return (status, captured)
    }

    static func server(_ path: String, body: Data, headers: [(name: String, value: String)] = []) throws -> TLSLoopbackServer {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route(path, response: .init(headers: [("Content-Type", "text/plain")] + headers, body: body))
        return server
    }

    // MARK: - Bodies

    @Test("a text body has ESC, CSI, OSC, DEL and a lone CR escaped; line feeds, tabs and CRLF line ends are kept")
    func textBody() async throws {
        let server = try Self.server("/note", body: Data(Self.hostileBody.utf8))
        let (status, captured) = await Self.run(server, "/note")
        #expect(status == 0, "\(captured.error)")
        #expect(captured.standard == String(Self.shownBody.dropLast()), "\(captured.standard.debugDescription)")
        #expect(!Self.holdsControls(captured.standard))
        #expect(captured.error.isEmpty)
    }

    @Test("a C1 control whose two UTF-8 bytes arrive in two reads is still escaped")
    func c1SplitAcrossReads() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        let firstWritten = DispatchSemaphore(value: 0)
        server.http.route(
            "/split",
            response: .streamed(headers: [("Transfer-Encoding", "chunked")]) { write in
                // 0xC2 ends the first chunk; 0x9B (completing U+009B, a CSI) starts the second,
                // sent only once the demo wrote something of the first (or after 30 s, so a demo
                // that holds everything fails rather than hangs).
                _ = write(Data("2\r\nA".utf8) + Data([0xC2]) + Data("\r\n".utf8))
                _ = firstWritten.wait(timeout: .now() + 30)
                _ = write(Data("4\r\n".utf8) + Data([0x9B]) + Data("2JB\r\n0\r\n\r\n".utf8))
            })
        let captured = CapturedOutput()
        let capturing = captured.output
        let output = DemoOutput(
            terminal: Terminal(outputIsTerminal: true, errorIsTerminal: true, noColor: true),
            write: { data in
                capturing.write(data)
                firstWritten.signal()
            },
            writeError: capturing.writeError)
        let status = await StrataDemo.run(["get", server.url("/split").absoluteString, "--ca", Self.caFile], output: output)
        #expect(status == 0, "\(captured.error)")
        #expect(captured.standard == #"A\u{9B}2JB"#, "\(captured.standard.debugDescription)")
    }

    @Test("a body with a NUL in its first bytes is not shown: exit 1, and the message offers '-o -' and '-o <file>'")
    func binaryBody() async throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52])
        let server = try Self.server("/image.png", body: png + Data(Self.hostileBody.utf8))
        let (status, captured) = await Self.run(server, "/image.png")
        #expect(status == 1)
        #expect(captured.standard.isEmpty, "\(captured.standard.debugDescription)")
        #expect(captured.error.hasPrefix("Error: The response body is binary"), "\(captured.error)")
        #expect(captured.error.contains("Use '-o -' to write it to the terminal anyway, or '-o <file>' to save it to a file."))
        #expect(server.http.requests.count == 1, "a refused body is not asked for again")
    }

    @Test("-o - writes the body to the terminal exactly as it came, NUL and controls included")
    func forcedOntoTheTerminal() async throws {
        let body = Data([0x00, 0x1B, 0x5B, 0x32, 0x4A, 0xC2, 0x9B, 0x7F, 0x9B, 0xFF]) + Data(Self.hostileBody.utf8)
        let server = try Self.server("/raw", body: body)
        let captured = CapturedOutput()
        var output = captured.output
        output.terminal = Terminal(outputIsTerminal: true, errorIsTerminal: true, noColor: true)
        let bytes = LockedValue(Data())
        let forwarding = output
        output.write = { data in
            bytes.withLock { $0.append(data) }
            forwarding.write(data)
        }
        let status = await StrataDemo.run(["get", server.url("/raw").absoluteString, "--ca", Self.caFile, "-o", "-"], output: output)
        #expect(status == 0, "\(captured.error)")
        #expect(bytes.withLock { $0 } == body)
    }

    @Test("through a pipe the body is written byte for byte, NUL and controls included, as with -o")
    func pipedBodyIsExact() async throws {
        let body = Data([0x00, 0x1B, 0x5B, 0x32, 0x4A, 0xC2, 0x9B, 0x7F, 0x9B, 0xFF]) + Data(Self.hostileBody.utf8)
        let server = try Self.server("/raw", body: body)
        let captured = CapturedOutput()
        let bytes = LockedValue(Data())
        var output = captured.output
        output.write = { data in bytes.withLock { $0.append(data) } }
        let status = await StrataDemo.run(["get", server.url("/raw").absoluteString, "--ca", Self.caFile], output: output)
        #expect(status == 0, "\(captured.error)")
        #expect(bytes.withLock { $0 } == body)
    }

    // MARK: - Headers

    @Test("-i and -v show header values with CSI and OSC (C1) escaped, and the body after them escaped too")
    func headers() async throws {
        // `PinningTransport` refuses a field value with ESC or DEL (RFC 9110 §5.5), so a hostile
        // header reaches the demo with C1 controls only; `URLSessionTransport` is checked below.
        let server = try Self.server(
            "/head", body: Data(Self.hostileBody.utf8),
            headers: [("X-Title", "\u{9D}0;pwned\u{9C}"), ("X-Clear", "\u{9B}2J")])
        for option in ["-i", "-v"] {
            let (status, captured) = await Self.run(server, "/head", [option])
            #expect(status == 0, "\(captured.error)")
            let head = option == "-i" ? captured.standard : captured.error
            #expect(head.contains(#"X-Title: \u{9D}0;pwned\u{9C}"#), "\(head.debugDescription)")
            #expect(head.contains(#"X-Clear: \u{9B}2J"#), "\(head.debugDescription)")
            #expect(captured.standard.hasSuffix(String(Self.shownBody.dropLast())))
            #expect(!Self.holdsControls(captured.standard) && !Self.holdsControls(captured.error))
        }
    }

    @Test("-i and -v show header values with ESC, DEL and C1 escaped when URLSession brings the response (http)")
    func headersOverURLSession() async throws {
        let server = try LoopbackHTTPServer()
        server.route(
            "/head",
            response: .raw(
                Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Title: \u{1B}]0;pwned\u{7}\r\nX-Clear: \u{9B}2J\u{7F}\r\n\r\nok".utf8)
            ))
        for option in ["-i", "-v"] {
            let captured = CapturedOutput()
            var output = captured.output
            output.terminal = Terminal(outputIsTerminal: true, errorIsTerminal: true, noColor: true)
            let status = await StrataDemo.run(["get", server.url("/head").absoluteString, option], output: output)
            #expect(status == 0, "\(captured.error)")
            let head = option == "-i" ? captured.standard : captured.error
            #expect(head.contains(#"X-Title: \u{1B}]0;pwned\u{7}"#), "\(head.debugDescription)")
            #expect(head.contains(#"X-Clear: \u{9B}2J\u{7F}"#), "\(head.debugDescription)")
            #expect(!Self.holdsControls(captured.standard) && !Self.holdsControls(captured.error))
        }
    }

    // MARK: - Server-sent events

    @Test("--events writes ESC, DEL, CSI and OSC in data, event and id as JSON escapes that read back as the server's text")
    func events() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        let data = "\u{1B}[2J \u{9B}2J \u{9D}0;pwned\u{9C} del\u{7F}"
        server.http.route("/feed") { request in
            guard request.header("Last-Event-ID") == nil else { return .init(status: 204) }
            return .init(
                headers: [("Content-Type", "text/event-stream")],
                text: "retry: 1\nevent: n\u{9B}2J\u{7F}\nid: 7\u{9D}\ndata: \(data)\n\n")
        }
        for terminal in [true, false] {
            let (status, captured) = await Self.run(server, "/feed", ["--events"], terminal: terminal)
            #expect(status == 0, "\(captured.error)")
            #expect(
                captured.standard
                    == #"{"data":"\u001b[2J \u009b2J \u009d0;pwned\u009c del\u007f","event":"n\u009b2J\u007f","id":"7\u009d","retry":1}"#,
                "\(captured.standard.debugDescription)")
            #expect(!Self.holdsControls(captured.standard))
            let event = try JSONSerialization.jsonObject(with: Data(captured.standard.utf8)) as? [String: Any]
            #expect(event?["data"] as? String == data)
            #expect(event?["event"] as? String == "n\u{9B}2J\u{7F}")
            #expect(event?["id"] as? String == "7\u{9D}")
        }
    }
}
