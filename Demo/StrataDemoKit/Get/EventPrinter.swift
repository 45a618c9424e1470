import Foundation
import Strata

/// Prints what the layers report while `get` runs, as it happens, on standard error: one JSON
/// object per line for `--json-events`, or `* ` lines for `-v`.
///
/// This file is the only place `get` touches the event API: it observes the one channel the
/// layers report to (`TransportEvents`), the same one `LoggingTransport` observes. URLs are
/// redacted and the request's own secrets scrubbed, as `LoggingTransport` does.
final class EventPrinter: TransportEventObserver {
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

    /// Runs `body` with this printer observing every event the layers below report.
    func observing<T>(_ body: () async throws -> T) async rethrows -> T {
        try await TransportEvents.observing(self, body)
    }

    /// Writes one event; called on whichever thread the reporting layer runs.
    func observe(_ event: TransportEvent) {
        let record = EventRecord(event, redaction: redaction, secretsFrom: secretsFrom)
        switch format {
        case .jsonLines:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let json = try? encoder.encode(record) else { return }
            output.writeError(json + Data("\n".utf8))
        case .text:
            output.errorLine(output.styledError("* " + record.summary, .dim))
        }
    }
}

/// One event as `--json-events` writes it: a name, the request it belongs to, and the
/// event's own fields (absent ones are omitted).
struct EventRecord: Encodable {
    var event: String
    var request: String
    var attempt: Int
    var summary: String
    var host: String?
    var port: Int?
    var url: String?
    var reused: Bool?
    var matchedPin: String?
    var failure: String?
    var retry: Int?
    var delaySeconds: Double?
    var reason: String?
    var status: Int?

    /// Reads `event`, redacting URLs and scrubbing `secretsFrom`'s secret values from every text.
    init(_ event: TransportEvent, redaction: Redaction, secretsFrom headers: HTTPHeaders) {
        defer {
            summary = redaction.scrub(summary, secretsFrom: headers)
            failure = failure.map { redaction.scrub($0, secretsFrom: headers) }
            reason = reason.map { redaction.scrub($0, secretsFrom: headers) }
        }
        request = event.requestID
        attempt = event.attempt
        switch event.kind {
        case .requestStarted(let method, let url, _, _):
            self.event = "request.started"
            self.url = redaction.redact(url)
            summary = "\(method) \(self.url ?? "")"
        case .responseReceived(let statusCode, _, _, _, let source):
            self.event = "response.received"
            status = statusCode
            summary = "response \(statusCode) (source: \(source.rawValue))"
        case .requestFailed(let error, _):
            self.event = "request.failed"
            failure = "\(error)"
            summary = "failed: \(error)"
        case .retryScheduled(let retry, let delay, let reason):
            self.event = "retry.scheduled"
            self.retry = retry
            delaySeconds = delay
            self.reason = reason
            summary = "retry \(retry) in \(String(format: "%.1f", delay)) s: \(reason)"
        case .authRefresh(let phase, let waiters):
            self.event = "auth.refresh"
            summary = "token refresh \(phase), \(waiters) waiting"
        case .authResend(let refreshed):
            self.event = "auth.resend"
            summary = refreshed ? "resent with the refreshed token" : "resent with the current token"
        case .cache(let action, let url):
            self.event = "etag.\(action)"
            self.url = redaction.redact(url)
            summary = "ETag store: \(action) \(self.url ?? "")"
        case .pinCheck(let host, let matchedPin, let failure):
            self.event = "pinning.check"
            self.host = host
            self.matchedPin = matchedPin
            self.failure = failure
            if let failure {
                summary = "\(host): the verified chain was refused: " + (failure.split(separator: "\n").first.map(String.init) ?? "")
            } else {
                summary = "\(host): the verified chain passed" + (matchedPin.map { " (matched \($0))" } ?? "")
            }
        case .connection(let host, let port, let reused):
            self.event = reused ? "connection.reused" : "connection.opened"
            self.host = host
            self.port = port
            self.reused = reused
            summary = reused ? "reusing the verified connection to \(host):\(port)"
                             : "new verified TLS connection to \(host):\(port)"
        }
    }
}
