#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// A decorator that logs what happens to each request, with secrets redacted, and collects the
/// events of every layer below it.
///
/// Place it anywhere in a stack. Outermost, it logs one start and one outcome per logical
/// request, plus each retry, token refresh, cache revalidation, pin check and connection reported
/// by the layers below. Just above the terminal transport, it logs every attempt. All events of
/// one logical request share a request identifier (kept across retries and resends, and shared
/// with an enclosing `LoggingTransport`) and carry the attempt number.
///
/// ```swift
/// let stack = LoggingTransport(inner: RetryTransport(inner: URLSessionTransport()),
///                              logger: ConsoleLogger(minimumLevel: .debug))
/// ```
///
/// Secrets: `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` (and more, see
/// ``Redaction``) are redacted in every event; bodies are never logged unless you pass
/// ``BodyLogging/truncated(maxBytes:)``. When the logger's level is off nothing is formatted.
public struct LoggingTransport: Transport {
    /// Whether request and response bodies appear in logs.
    public enum BodyLogging: Sendable, Hashable {
        /// Bodies are never logged (the default): they may hold passwords or personal data.
        case off
        /// Bodies are logged as UTF-8 text, cut after `maxBytes` bytes.
        case truncated(maxBytes: Int)
    }

    /// The transport that sends the requests.
    public let inner: any Transport
    private let writer: EventLogWriter

    /// Creates a logging decorator.
    ///
    /// - Parameters:
    ///   - inner: The transport to send through.
    ///   - logger: Where messages go.
    ///   - redaction: What to hide. Default: credentials, cookies and common token parameters.
    ///   - bodies: Whether to log bodies. Default: ``BodyLogging/off``.
    public init(inner: any Transport, logger: any StrataLogger, redaction: Redaction = Redaction(),
                bodies: BodyLogging = .off) {
        self.inner = inner
        writer = EventLogWriter(logger: logger, redaction: redaction, bodies: bodies)
    }

    /// Sends the request through `inner`, logging its start, its outcome and the events below.
    public func send(_ request: URLRequest) async throws -> HTTPResponse {
        let headers = HTTPHeaders(request)
        return try await TransportEvents.observing(writer.observer(secretsFrom: headers)) {
            TransportEvents.emit(.requestStarted(method: HTTPMethod(request), url: request.url,
                                                 headers: headers, body: request.httpBody))
            let started = ContinuousClock.now
            do {
                let response = try await inner.send(request)
                TransportEvents.emit(.responseReceived(statusCode: response.statusCode, duration: .now - started,
                                                       headers: response.headers, body: response.body,
                                                       source: response.source))
                return response
            } catch {
                TransportEvents.emit(.requestFailed(error: error, duration: .now - started))
                throw error
            }
        }
    }
}
