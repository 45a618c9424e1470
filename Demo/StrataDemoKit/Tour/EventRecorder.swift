import Strata

/// Keeps every event an `ObservingTransport` reports, in order. Events arrive from whichever
/// task emits them, hence the lock.
final class EventRecorder: Sendable {
    private let events = LockedValue<[any TransportEvent]>([])

    /// Appends one event; pass as an `ObservingTransport`'s observer.
    @Sendable func record(_ observed: ObservedEvent) { events.withLock { $0.append(observed.event) } }

    /// Every event of one feature's type so far, such as `all(RetryEvent.self)`.
    func all<Event: TransportEvent>(_ type: Event.Type) -> [Event] {
        events.withLock { $0.compactMap { $0 as? Event } }
    }
}
