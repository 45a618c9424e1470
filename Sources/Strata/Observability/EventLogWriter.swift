import Foundation

/// Turns ``TransportEvent``s into redacted log messages for ``LoggingTransport``.
///
/// Each event's level is checked against the logger before any text is built.
struct EventLogWriter: Sendable {
    let logger: any StrataLogger
    let redaction: Redaction
    let bodies: LoggingTransport.BodyLogging

    /// An observer for one request; secret header values of that request are scrubbed from any
    /// error text logged for it.
    func observer(secretsFrom headers: HTTPHeaders) -> Observer {
        Observer(writer: self, secrets: headers)
    }

    struct Observer: TransportEventObserver {
        let writer: EventLogWriter
        let secrets: HTTPHeaders

        func observe(_ event: TransportEvent) {
            let level = EventLogWriter.level(of: event.kind)
            guard writer.logger.isEnabled(level) else { return }
            let (message, details) = writer.describe(event.kind, secrets: secrets)
            var metadata = details
            metadata["request"] = event.requestID
            metadata["attempt"] = String(event.attempt)
            writer.logger.record(level, message, metadata: metadata)
        }
    }

    static func level(of kind: TransportEvent.Kind) -> LogLevel {
        switch kind {
        case .requestStarted, .cache, .connection: .debug
        case .pinCheck(_, _, let failure): failure == nil ? .debug : .error
        case .responseReceived: .info
        case .retryScheduled, .authResend: .notice
        case .authRefresh(let phase, _):
            if case .failed = phase { .error } else { .notice }
        case .requestFailed: .error
        }
    }

    func describe(_ kind: TransportEvent.Kind, secrets: HTTPHeaders) -> (String, LogMetadata) {
        switch kind {
        case .requestStarted(let method, let url, let headers, let body):
            var metadata: LogMetadata = [
                "method": method.rawValue, "url": redaction.redact(url), "headers": format(headers),
            ]
            if let body, let text = bodyText(body) { metadata["body"] = redaction.scrub(text, secretsFrom: secrets) }
            return ("request.start", metadata)
        case .responseReceived(let status, let duration, let headers, let body, let source):
            var metadata: LogMetadata = [
                "status": String(status), "duration_ms": Self.milliseconds(duration), "headers": format(headers),
                "body_bytes": String(body.count), "source": source.rawValue,
            ]
            if let text = bodyText(body) { metadata["body"] = redaction.scrub(text, secretsFrom: secrets) }
            return ("request.response", metadata)
        case .requestFailed(let error, let duration):
            return ("request.failure", [
                "error_kind": Self.errorKind(error), "duration_ms": Self.milliseconds(duration),
                "error": redaction.scrub(String(describing: error), secretsFrom: secrets),
            ])
        case .retryScheduled(let attempt, let delay, let reason):
            return ("retry.scheduled", [
                "retry": String(attempt), "delay_s": String(format: "%.3f", delay),
                "reason": redaction.scrub(reason, secretsFrom: secrets),
            ])
        case .authRefresh(let phase, let waiters):
            var metadata: LogMetadata = ["waiters": String(waiters)]
            let phaseName: String
            switch phase {
            case .started: phaseName = "started"
            case .succeeded: phaseName = "succeeded"
            case .failed(let reason):
                phaseName = "failed"
                metadata["error"] = redaction.scrub(reason, secretsFrom: secrets)
            }
            metadata["phase"] = phaseName
            return ("auth.refresh", metadata)
        case .authResend(let refreshed):
            return ("auth.resend", ["after_refresh": String(refreshed)])
        case .cache(let action, let url):
            return ("cache.\(action)", ["url": redaction.redact(url)])
        case .pinCheck(let host, let pin, let failure):
            var metadata: LogMetadata = ["host": host, "result": failure == nil ? "matched" : "failed"]
            if let pin { metadata["pin"] = pin }
            if let failure { metadata["error"] = failure }
            return ("pin.check", metadata)
        case .connection(let host, let port, let reused):
            return ("connection", ["host": host, "port": String(port), "reused": String(reused)])
        }
    }

    private func format(_ headers: HTTPHeaders) -> String {
        redaction.redact(headers).map { "\($0.name): \($0.value)" }.joined(separator: ", ")
    }

    private func bodyText(_ body: Data) -> String? {
        guard case .truncated(let maxBytes) = bodies, !body.isEmpty else { return nil }
        let text = String(decoding: body.prefix(max(0, maxBytes)), as: UTF8.self)
        return body.count > maxBytes ? text + "…(\(body.count) bytes)" : text
    }

    static func errorKind(_ error: any Error) -> String {
        switch error {
        case let error as TransportError: error.kind.rawValue
        case is CancellationError: "cancelled"
        default: String(describing: type(of: error))
        }
    }

    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.2f", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }
}
