import Foundation
import Strata

/// How `strata-demo get --events` prints a server-sent event: one JSON object per line
/// (`{"data":"…","event":"message","id":"7"}`), so a multi-line `data` stays on one line, a
/// script can read the output with any JSON tool, and the server's control characters reach the
/// terminal escaped (`\u001b`), never as escape sequences.
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
        var line = (try? encoder.encode(Fields(event: event.type, data: event.data, id: event.id, retry: retry))) ?? Data("{}".utf8)
        line.append(0x0A)
        return line
    }
}
