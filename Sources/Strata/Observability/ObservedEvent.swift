/// One ``TransportEvent`` as an observer receives it: what happened, to which logical request,
/// on which attempt.
public struct ObservedEvent: Sendable {
    /// What happened. Cast it to a feature's event type to read its cases.
    public var event: any TransportEvent
    /// The identifier of the logical request (eight hex digits), the same for every event of
    /// that request, across retries, resends and every observer.
    public var requestID: String
    /// The send this event belongs to, starting at 1 and rising by one per send across all
    /// layers (a retry, a resend after a token refresh).
    public var attempt: Int

    /// Creates an observed event, for tests of observers.
    package init(event: any TransportEvent, requestID: String, attempt: Int) {
        self.event = event
        self.requestID = requestID
        self.attempt = attempt
    }
}
