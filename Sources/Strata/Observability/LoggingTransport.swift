#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// A decorator that logs what happens to each request, with secrets redacted: its start, its
/// outcome, and every ``TransportEvent`` the layers below it report.
///
/// Place it anywhere in a stack. Outermost, it logs one start and one outcome per logical
/// request, plus each retry, token refresh, cache revalidation, pin check and connection reported
/// by the layers below. Just above the terminal transport, it logs every attempt. All events of
/// one logical request share a request identifier (kept across retries and resends, and shared
/// with any other observer) and carry the attempt number.
///
/// ```swift
/// let stack = LoggingTransport(inner: RetryTransport(inner: URLSessionTransport()),
///                              logger: ConsoleLogger(minimumLevel: .debug))
/// ```
///
/// Each message is the event's own line (``TransportEvent/message(redactedBy:)``), at the
/// event's level, with metadata `event` (its ``TransportEvent/name``), `request`, `attempt` and
/// the event's own details. It knows no feature's events: a layer you write is logged the same
/// way as soon as it emits.
///
/// Secrets: `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` (and more, see
/// ``Redaction``) are redacted in every event, and the values of the request's secret headers
/// are scrubbed from every line logged for it; bodies are never logged unless you pass
/// ``BodyLogging/truncated(maxBytes:)``. When the logger's level is off nothing is formatted;
/// when it takes no level at all, the layer steps aside and costs a few calls per request.
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
    /// `inner`, when it reports client identities (looked up once, not per request).
    private let cacheIdentities: (any CacheIdentityProviding)?
    private let logger: any StrataLogger
    private let redaction: Redaction
    private let bodies: BodyLogging

    /// Creates a logging decorator.
    ///
    /// - Parameters:
    ///   - inner: The transport to send through.
    ///   - logger: Where messages go.
    ///   - redaction: What to hide. Default: credentials, cookies and common token parameters.
    ///   - bodies: Whether to log bodies. Default: ``BodyLogging/off``.
    public init(
        inner: any Transport, logger: any StrataLogger, redaction: Redaction = Redaction(),
        bodies: BodyLogging = .off
    ) {
        self.inner = inner
        cacheIdentities = inner as? any CacheIdentityProviding
        self.logger = logger
        self.redaction = redaction
        self.bodies = bodies
    }

    /// Sends the request through `inner`, logging its start, its outcome and the events below.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        // A logger that takes no level logs nothing for this request: no observer is installed,
        // so no event is built and no identifier drawn for it.
        guard Self.levels.contains(where: logger.isEnabled) else { return try await inner.send(request) }
        // The values of this request's secret headers, scrubbed from everything logged for it
        // (a server's error text may quote a token back); found only once something is logged.
        let secrets = RequestSecrets(request: request, redaction: redaction)
        return try await ObservingTransport.send(request, through: inner) { observed in
            write(observed, scrubbing: secrets)
        }
    }

    /// Streams the request through `inner`, logging its start, its head, the end of its body
    /// (bytes and time, never the bytes themselves) and the events below.
    public func stream<Result: Sendable>(
        _ request: HTTPRequest,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        guard Self.levels.contains(where: logger.isEnabled) else { return try await inner.stream(request, consume) }
        let secrets = RequestSecrets(request: request, redaction: redaction)
        return try await ObservingTransport.stream(
            request, through: inner,
            observer: { observed in
                write(observed, scrubbing: secrets)
            }, consume)
    }

    private static let levels = LogLevel.allCases

    private func write(_ observed: ObservedEvent, scrubbing secrets: RequestSecrets) {
        let event = observed.event
        let level = event.logLevel
        guard logger.isEnabled(level) else { return }
        let values = secrets.values
        let scrub = { (text: String) -> String in
            values.reduce(text) { text, secret in
                Self.contains(text, secret) ? text.replacing(secret, with: Redaction.placeholder) : text
            }
        }
        var metadata = event.logMetadata(redactedBy: redaction)
        if !values.isEmpty { metadata = metadata.mapValues(scrub) }
        if let body = bodyText(of: event) { metadata["body"] = scrub(redaction.scrub(body)) }
        metadata["event"] = event.name
        metadata["request"] = observed.requestID
        metadata["attempt"] = String(observed.attempt)
        logger.record(level, scrub(event.message(redactedBy: redaction)), metadata: metadata)
    }

    /// Whether `text` contains `secret`, by a plain byte search: most lines contain no secret,
    /// and the generic `String` search costs microseconds per call on every line.
    private static func contains(_ text: String, _ secret: String) -> Bool {
        var text = text, secret = secret
        return text.withUTF8 { haystack in
            secret.withUTF8 { needle in
                guard let first = needle.first, haystack.count >= needle.count else { return false }
                var start = 0
                while start <= haystack.count - needle.count {
                    if haystack[start] == first,
                        memcmp(haystack.baseAddress! + start, needle.baseAddress!, needle.count) == 0
                    {
                        return true
                    }
                    start += 1
                }
                return false
            }
        }
    }

    /// The secret header values of one request, computed on first use: a request nothing is
    /// logged for never pays for them.
    private final class RequestSecrets: Sendable {
        private let computed: LockedValue<[String]?> = LockedValue(nil)
        private let request: HTTPRequest
        private let redaction: Redaction

        init(request: HTTPRequest, redaction: Redaction) {
            self.request = request
            self.redaction = redaction
        }

        var values: [String] {
            computed.withLock { computed in
                if let computed { return computed }
                let values = request.headers.filter { redaction.isSecretHeader($0.name) }
                    .flatMap { redaction.secretParts(of: $0.value) }
                computed = values
                return values
            }
        }
    }

    /// The body of a request or response event, as text cut at the configured length.
    private func bodyText(of event: any TransportEvent) -> String? {
        guard case .truncated(let maxBytes) = bodies, let event = event as? RequestEvent else { return nil }
        let body: Data?
        switch event {
        case .started(let request): body = request.body?.bytesInMemory.map { Data($0) } // A stream is not read to log it.
        case .responded(_, let response, _): body = response.body
        case .failed, .receivedHead, .streamed: body = nil // A streamed body is not read to log it.
        }
        guard let body, !body.isEmpty else { return nil }
        let text = String(decoding: body.prefix(max(0, maxBytes)), as: UTF8.self)
        return body.count > maxBytes ? text + "…(\(body.count) bytes)" : text
    }
}

extension TransportLayer {
    /// A ``LoggingTransport`` layer, for a ``TransportStack``.
    public static func logging(
        logger: any StrataLogger, redaction: Redaction = Redaction(),
        bodies: LoggingTransport.BodyLogging = .off
    ) -> TransportLayer {
        TransportLayer { LoggingTransport(inner: $0, logger: logger, redaction: redaction, bodies: bodies) }
    }
}

extension LoggingTransport: CacheIdentityProviding {
    /// The client identity `inner` reports for `url`, or `nil` when it reports none or does not
    /// conform: this layer never changes which certificate a request is sent with.
    public func cacheIdentity(for url: URL) -> String? {
        cacheIdentities?.cacheIdentity(for: url)
    }
}

extension LoggingTransport: EventObservationScope {
    /// `true`: it installs an observer.
    package var mayObserveEvents: Bool { true }
}
