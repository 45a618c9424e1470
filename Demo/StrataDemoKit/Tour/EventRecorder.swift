import Strata

/// Keeps every event a layer's hook reports, in order. Hooks run on whichever task or connection
/// thread is active, hence the mutex.
final class EventRecorder<Event: Sendable>: Sendable {
    private let events = LockedValue<[Event]>([])

    /// Appends one event; pass as a layer's `onEvent`/`onRetry`/`onRefresh` hook.
    @Sendable func record(_ event: Event) { events.withLock { $0.append(event) } }

    /// Every event so far.
    var all: [Event] { events.withLock { $0 } }
}
