#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// The start and the outcome of a request as an observer saw it: reported by
/// ``ObservingTransport`` and ``LoggingTransport`` to their own observer, at their place in the
/// stack (outermost: once per logical request; just above the terminal transport: once per
/// attempt).
public enum RequestEvent: TransportEvent {
    /// The request is about to be sent by the layer below the observer.
    case started(HTTPRequest)
    /// A response arrived after `duration`.
    case responded(HTTPRequest, HTTPResponse, duration: Duration)
    /// No response arrived, or reading a streamed one failed; `error` was thrown after `duration`.
    case failed(HTTPRequest, any Error, duration: Duration)
    /// A streamed response's head arrived after `duration`; its body follows as the caller reads it.
    case receivedHead(HTTPRequest, HTTPResponseHead, duration: Duration)
    /// The caller finished with a streamed response after `duration`, having read `bytes` of its body.
    case streamed(HTTPRequest, HTTPResponseHead, bytes: Int64, duration: Duration)

    /// `request.start`, `request.response` or `request.failure`.
    public var name: String {
        switch self {
        case .started: "request.start"
        case .responded: "request.response"
        case .failed: "request.failure"
        case .receivedHead: "request.head"
        case .streamed: "request.streamed"
        }
    }

    /// `debug` for a start and a streamed head, `info` for a response and the end of a stream,
    /// `error` for a failure.
    public var logLevel: LogLevel {
        switch self {
        case .started, .receivedHead: .debug
        case .responded, .streamed: .info
        case .failed: .error
        }
    }

    /// For example `GET https://api.example.com/todos → 200 in 12.40 ms (512 bytes)`.
    public func message(redactedBy redaction: Redaction) -> String {
        switch self {
        case .started(let request):
            return Self.line(request, redaction)
        case .responded(let request, let response, let duration):
            let revalidated = response.source == .revalidated ? ", revalidated" : ""
            return "\(Self.line(request, redaction)) → \(response.statusCode) in \(Self.milliseconds(duration)) ms "
                + "(\(response.body.count) bytes\(revalidated))"
        case .failed(let request, let error, let duration):
            return "\(Self.line(request, redaction)) failed after \(Self.milliseconds(duration)) ms: "
                + redaction.scrub(String(describing: error))
        case .receivedHead(let request, let head, let duration):
            return "\(Self.line(request, redaction)) → \(head.statusCode), head in \(Self.milliseconds(duration)) ms"
        case .streamed(let request, let head, let bytes, let duration):
            return "\(Self.line(request, redaction)) → \(head.statusCode) in \(Self.milliseconds(duration)) ms "
                + "(\(bytes) bytes streamed)"
        }
    }

    /// Method, URL and headers of a start; status, duration, size, source and headers of a
    /// response; the error's kind and text of a failure.
    public func logMetadata(redactedBy redaction: Redaction) -> LogMetadata {
        switch self {
        case .started(let request):
            return [
                "method": request.method.rawValue, "url": redaction.redact(request.url),
                "headers": Self.format(request.headers, redaction),
            ]
        case .responded(_, let response, let duration):
            return [
                "status": String(response.statusCode), "duration_ms": Self.milliseconds(duration),
                "body_bytes": String(response.body.count), "source": response.source.rawValue,
                "headers": Self.format(response.headers, redaction),
            ]
        case .failed(_, let error, let duration):
            return [
                "error_kind": Self.errorKind(error), "duration_ms": Self.milliseconds(duration),
                "error": redaction.scrub(String(describing: error)),
            ]
        case .receivedHead(_, let head, let duration):
            return [
                "status": String(head.statusCode), "duration_ms": Self.milliseconds(duration),
                "headers": Self.format(head.headers, redaction),
            ]
        case .streamed(_, let head, let bytes, let duration):
            return [
                "status": String(head.statusCode), "duration_ms": Self.milliseconds(duration),
                "body_bytes": String(bytes),
            ]
        }
    }

    private static func line(_ request: HTTPRequest, _ redaction: Redaction) -> String {
        "\(request.method) \(redaction.redact(request.url))"
    }

    private static func format(_ headers: HTTPHeaders, _ redaction: Redaction) -> String {
        redaction.redact(headers).map { "\($0.name): \($0.value)" }.joined(separator: ", ")
    }

    private static func errorKind(_ error: any Error) -> String {
        switch error {
        case let error as TransportError: error.kind.rawValue
        case is CancellationError: "cancelled"
        default: String(describing: type(of: error))
        }
    }

    package static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return Double.fixed(Double(seconds) * 1000 + Double(attoseconds) / 1e15, places: 2)
    }
}
