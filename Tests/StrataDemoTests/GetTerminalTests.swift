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
