/// Something a transport layer did for one request: a retry it scheduled, a token refresh, a
/// cache revalidation, a pin check, a connection it opened.
///
/// Each feature owns its event type, an enum conforming to this protocol (``RetryEvent``,
/// ``ReauthEvent``, ``ETagEvent``, ``ETagStoreEvent``, `PinningEvent` in StrataPinning, and the
/// core's own ``RequestEvent``); the core knows none of their cases. Layers report events with
/// ``TransportEvents/emit(_:)``, and every observer above them (``LoggingTransport``,
/// ``ObservingTransport``) receives the same values, so a logger, a metrics exporter and a test
/// all see one stream. To react to one feature's events, cast:
/// ```swift
/// ObservingTransport(inner: stack) { observed in
///     if case .scheduled(let retry, let delay, _, _) = observed.event as? RetryEvent {
///         metrics.recordRetry(retry, after: delay)
///     }
/// }
/// ```
///
/// Events carry raw values (URLs, headers, error texts) for code that inspects them. Anything
/// meant for a person goes through ``message(redactedBy:)`` and ``logMetadata(redactedBy:)``,
/// which must replace every secret as the given ``Redaction`` says; ``description`` uses the
/// default redaction, so printing an event is safe too.
///
/// To add an event to your own layer, write an enum, conform it, and emit its cases:
/// ```swift
/// enum ThrottleEvent: TransportEvent {
///     case waited(Duration)
///     var name: String { "throttle.waited" }
///     var logLevel: LogLevel { .notice }
///     func message(redactedBy redaction: Redaction) -> String {
///         switch self { case .waited(let duration): "throttled for \(duration)" }
///     }
/// }
/// TransportEvents.emit(ThrottleEvent.waited(.milliseconds(20)))
/// ```
public protocol TransportEvent: Sendable, CustomStringConvertible {
    /// A stable name for this kind of event, `feature.what` such as `retry.scheduled`, for log
    /// queries and metrics. It never contains a value from the request.
    var name: String { get }
    /// The level a log records this event at.
    var logLevel: LogLevel { get }
    /// One line for a person, such as `retry 1 of GET https://api.example.com/todos in 0.371 s
    /// (status 503)`, with every secret replaced as `redaction` says.
    func message(redactedBy redaction: Redaction) -> String
    /// Structured details for logs, such as `["status": "503"]`, with every secret replaced as
    /// `redaction` says. Default: none.
    func logMetadata(redactedBy redaction: Redaction) -> LogMetadata
}

extension TransportEvent {
    /// No structured details.
    public func logMetadata(redactedBy redaction: Redaction) -> LogMetadata { [:] }

    /// The one-line message under the default ``Redaction``: safe to print or log.
    public var description: String { message(redactedBy: Redaction()) }
}
