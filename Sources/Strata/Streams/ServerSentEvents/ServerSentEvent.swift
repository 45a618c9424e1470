/// One event of a `text/event-stream` body, as a browser's `EventSource` dispatches it.
///
/// Read events from a body with ``HTTPBody/serverSentEvents(maxEventBytes:)``, or from an
/// endpoint that reconnects when the connection drops with ``EventSource`` (or
/// ``HTTPNetworkService/events(_:via:lastEventID:reconnect:maxEventBytes:clock:)``).
///
/// ```swift
/// for try await event in service.events(ChatAPI.complete(prompt), via: production, reconnect: .never) {
///     if event.data == "[DONE]" { break }
///     print(event.data, terminator: "")
/// }
/// ```
public struct ServerSentEvent: Sendable, Hashable {
    /// The event's type: the last `event:` field of its block, or `"message"` when it had none.
    public var type: String
    /// The event's data: its `data:` fields' values joined with `"\n"`.
    public var data: String
    /// The stream's last event ID when the event was dispatched (EventSource's `lastEventId`): set
    /// by the last `id:` field seen in this or an earlier event, `nil` when none was (or an empty
    /// `id:` reset it). A reconnecting ``EventSource`` sends it back as `Last-Event-ID`.
    public var id: String?
    /// The reconnection time the stream asked for so far (its last valid `retry:` field, in this
    /// or an earlier block), or `nil` when it asked for none.
    public var retry: Duration?

    /// Creates an event.
    ///
    /// - Parameters:
    ///   - type: The event type. Default: `"message"`.
    ///   - data: The event's data.
    ///   - id: The last event ID, or `nil` for none.
    ///   - retry: The reconnection time the stream asked for, or `nil`.
    public init(type: String = "message", data: String, id: String? = nil, retry: Duration? = nil) {
        self.type = type
        self.data = data
        self.id = id
        self.retry = retry
    }
}
