#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
@testable import StrataDemoKit
import StrataPinning
import StrataSandbox
import Testing

/// An event quoting hostile text, as a server's error message or redirect target would.
private struct Quoting: TransportEvent {
    let text: String
    var name: String { "test.quoting" }
    var logLevel: LogLevel { .notice }
    func message(redactedBy redaction: Redaction) -> String { "server said \(text)" }
    func logMetadata(redactedBy redaction: Redaction) -> LogMetadata { ["said": text] }
}

@Suite("Text from a server or a certificate reaches the terminal with its control characters escaped")
struct TerminalTextTests {
    /// ESC starting a clear-screen sequence, a C1 CSI (U+009B) doing the same alone, and DEL.
    static let hostile = "a\u{1B}[2Jb\u{9B}2Jc\u{7F}d"
    static let escaped = #"a\u{1B}[2Jb\u{9B}2Jc\u{7F}d"#

    /// Whether `text` holds a C0 control other than a line break, DEL or a C1 control.
    static func holdsControls(_ text: String) -> Bool {
        text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) }
    }

    @Test("C0, DEL and C1 become visible escapes; other text, non-ASCII included, is unchanged")
    func escaping() {
        #expect(TerminalText.escaping(Self.hostile) == Self.escaped)
        #expect(TerminalText.escaping("tab\there\nnext") == #"tab\u{9}here\u{A}next"#)
        #expect(TerminalText.escaping("two\nlines\r", keepingLineBreaks: true) == "two\nlines\\u{D}")
        #expect(TerminalText.escaping("CN=Zoë Ünïcode,O=Ærø") == "CN=Zoë Ünïcode,O=Ærø")
    }

    @Test("JSON lines get DEL and C1 as JSON escapes (\\u007f, \\u009b) and read back as the same text")
    func jsonEscaping() throws {
        let text = "a\u{1B}b\u{7F}c\u{9B}d\u{9D}e\u{9F}f\u{A0}é"
        let json = try JSONEncoder().encode(["text": text])
        let escaped = TerminalText.escapingJSON(json)
        #expect(String(decoding: escaped, as: UTF8.self) == #"{"text":"a\u001bb\u007fc\u009bd\u009de\u009ff\#u{A0}é"}"#)
        #expect(try JSONDecoder().decode([String: String].self, from: escaped) == ["text": text])
        #expect(TerminalText.escapingJSON(Data(#"{"plain":"é"}"#.utf8)) == Data(#"{"plain":"é"}"#.utf8))
    }

    @Test("-v and -i show a response header value with ESC, U+009B and DEL escaped")
    func responseHeaders() {
        let head = ResponseHead(HTTPResponseHead(statusCode: 200, headers: HTTPHeaders([("X-Note", Self.hostile)])))
        #expect(head.lines.contains("X-Note: \(Self.escaped)"))
        #expect(!head.lines.contains(where: Self.holdsControls))
    }

    @Test("an event's summary and details, as -v and --json-events print them, are escaped")
    func events() {
        let record = EventRecord(
            ObservedEvent(event: Quoting(text: Self.hostile), requestID: "0badc0de", attempt: 1),
            redaction: Redaction(), secretsFrom: [:])
        #expect(record.summary == "server said \(Self.escaped)")
        #expect(record.details["said"] == Self.escaped)
    }

    @Test("an event as --json-events writes it has no raw control character and reads back as the server's text")
    func jsonEvents() throws {
        let record = EventRecord(
            ObservedEvent(event: Quoting(text: Self.hostile), requestID: "0badc0de", attempt: 1),
            redaction: Redaction(), secretsFrom: [:], escapingForText: false)
        let line = TerminalText.escapingJSON(try JSONEncoder().encode(record))
        #expect(!Self.holdsControls(String(decoding: line, as: UTF8.self)))
        let decoded = try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
        #expect(decoded["said"] as? String == Self.hostile)
        #expect(decoded["summary"] as? String == "server said \(Self.hostile)")
    }

    @Test("pin prints a certificate name with ESC, U+009B and DEL escaped, as lines, warnings and JSON")
    func certificateNames() async throws {
        let authority = try CertificateAuthority(name: "Evil \(Self.hostile)", lifetime: .seconds(3_600))
        let file = try DemoProcess.temporaryDirectory().appendingPathComponent("evil.pem")
        try Data(authority.certificate.pem.utf8).write(to: file)
        for json in [false, true] {
            let captured = CapturedOutput()
            let status = await StrataDemo.run(["pin", "--cert", file.path] + (json ? ["--json"] : []), output: captured.output)
            #expect(status == 0, "\(captured.error)")
            for text in [captured.standard, captured.error] {
                #expect(!Self.holdsControls(text), "\(text.debugDescription)")
            }
            // OpenSSL already writes ESC and DEL as \1B and \7F; the C1 control it passes on is escaped here.
            let shown = captured.standard.replacingOccurrences(of: #"\\"#, with: #"\"#)
            #expect(shown.contains(#"\u{9B}2J"#), "\(captured.standard)")
            #expect(captured.error.contains(#"\u{9B}2J"#), "the expiry warning names it too: \(captured.error)")
        }
    }
}
