import Foundation
import Strata

/// Prints what the layers report while `get` runs, as it happens, on standard error: one JSON
/// object per line for `--json-events`, or `* ` lines for `-v`.
///
/// This file is the only place `get` touches the event API: it observes the one channel every
/// layer reports to, through an `ObservingTransport`, as `LoggingTransport` does. It knows no
/// layer's event cases: each event supplies its name, its one-line message and its details,
/// redacted with the `Redaction` given; the request's own secret header values are scrubbed too.
struct EventPrinter: Sendable {
    /// How events are written.
    enum Format: Sendable {
        /// One JSON object per line, keys sorted: `{"attempt":1,"event":"retry.scheduled",…}`.
        case jsonLines
        /// `* ` and a sentence, for a person reading `-v` output.
        case text
    }

    private let format: Format
    private let output: DemoOutput
    private let redaction = Redaction()
    private let secretsFrom: HTTPHeaders

    /// Creates a printer.
    ///
    /// - Parameters:
    ///   - format: JSON lines or text.
    ///   - output: Where the lines go (standard error).
    ///   - secretsFrom: The request's headers, whose secret values never appear in a line.
    init(format: Format, output: DemoOutput, secretsFrom: HTTPHeaders) {
        self.format = format
        self.output = output
        self.secretsFrom = secretsFrom
    }

    /// `transport` observed by this printer: every event of the layers inside it is written.
    func observing(_ transport: any Transport) -> ObservingTransport {
        ObservingTransport(inner: transport) { observed in write(observed) }
    }

    /// Writes one event; called on whichever task the reporting layer runs.
    private func write(_ observed: ObservedEvent) {
        let record = EventRecord(observed, redaction: redaction, secretsFrom: secretsFrom, escapingForText: format == .text)
        switch format {
        case .jsonLines:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let json = try? encoder.encode(record) else { return }
            // JSON escapes C0; DEL and C1, which it leaves raw, get JSON escapes too, so the line
            // is inert on a terminal and reads back as the server's text (as --events lines do).
            output.writeError(TerminalText.escapingJSON(json) + Data("\n".utf8))
        case .text:
            output.errorLine(output.styledError("* " + record.summary, .dim))
        }
    }
}

/// One event as `--json-events` writes it: its name, the request it belongs to and the attempt,
/// its one-line message, and its details (the event's own log metadata) as further keys.
struct EventRecord: Encodable {
    var event: String
    var request: String
    var attempt: Int
    var summary: String
    var details: [String: String]

    /// Reads `observed`, redacting with `redaction` and scrubbing `secretsFrom`'s secret values.
    /// Events quote the server (a URL it redirected to, a certificate name, an error message):
    /// with `escapingForText`, for `-v`'s lines, control characters are written as visible
    /// escapes (`\u{9B}`); without it, for JSON, the text stays the server's and the JSON line
    /// is escaped as a whole (``TerminalText/escapingJSON(_:)``).
    init(_ observed: ObservedEvent, redaction: Redaction, secretsFrom headers: HTTPHeaders, escapingForText: Bool = true) {
        let scrub = { (text: String) in
            let scrubbed = redaction.scrub(text, secretsFrom: headers)
            return escapingForText ? TerminalText.escaping(scrubbed) : scrubbed
        }
        event = observed.event.name
        request = observed.requestID
        attempt = observed.attempt
        summary = scrub(observed.event.message(redactedBy: redaction))
        details = observed.event.logMetadata(redactedBy: redaction).mapValues(scrub)
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// One flat object: the fixed keys, then each detail under its own name.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (name, value) in details where !["event", "request", "attempt", "summary"].contains(name) {
            try container.encode(value, forKey: Key(stringValue: name))
        }
        try container.encode(event, forKey: Key(stringValue: "event"))
        try container.encode(request, forKey: Key(stringValue: "request"))
        try container.encode(attempt, forKey: Key(stringValue: "attempt"))
        try container.encode(summary, forKey: Key(stringValue: "summary"))
    }
}
