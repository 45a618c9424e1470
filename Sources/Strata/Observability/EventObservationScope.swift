/// What a transport says about observers below it, so that a layer above knows, once, whether
/// anything below can read the logical request it would begin.
///
/// ``RetryTransport`` and ``ReauthTransport`` begin a logical request (``TransportEvents``) so
/// that an observer *below* them (a ``LoggingTransport`` between a retry and the terminal) sees
/// every attempt under one identifier. Beginning one is a task-local push, about a third of
/// either layer's own work on a request; when nothing below can observe, nothing would read it,
/// so they skip it. Events they emit still reach observers above: those observers began the
/// logical request already.
///
/// Strata's own transports conform. A transport that does not (a third-party layer, a test
/// double) is taken to possibly observe, which keeps the identifiers right at the old cost.
package protocol EventObservationScope {
    /// Whether this transport, or one it sends through, may install an event observer.
    var mayObserveEvents: Bool { get }
}

extension TransportEvents {
    /// Whether `transport`, or one it sends through, may install an event observer: `true` for a
    /// transport that does not say (see ``EventObservationScope``).
    package static func mayBeObserved(within transport: any Transport) -> Bool {
        (transport as? any EventObservationScope)?.mayObserveEvents ?? true
    }
}
