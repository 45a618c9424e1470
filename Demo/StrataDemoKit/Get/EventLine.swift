import Foundation
import Strata

/// How `strata-demo get --events` prints a server-sent event: one JSON object per line
/// (`{"data":"…","event":"message","id":"7"}`), so a multi-line `data` stays on one line, a
/// script can read the output with any JSON tool, and the server's control characters reach the
/// terminal escaped, never as escape sequences: C0 by `JSONEncoder` (`\u001b`), DEL and C1 by
/// ``TerminalText/escapingJSON(_:)`` (`\u007f`, `\u009b`). The escapes are JSON's own, so a
/// script reads back the event's exact text; they are written through a pipe too.
enum EventLine {
    private struct Fields: Encodable {
        var event: String
        var data: String
        var id: String?
        var retry: Int64?
    }

    /// `event` as one line of JSON, with its newline; `retry` in milliseconds when the server set one.
    static func json(_ event: ServerSentEvent) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let retry = event.retry.map { $0.components.seconds * 1_000 + $0.components.attoseconds / 1_000_000_000_000_000 }
        // Encoding strings and optionals cannot fail; an empty object would still be a line.
        let json = try? encoder.encode(Fields(event: event.type, data: event.data, id: event.id, retry: retry))
        var line = json.map(TerminalText.escapingJSON) ?? Data("{}".utf8)
        line.append(0x0A)
        return line
    }
}
