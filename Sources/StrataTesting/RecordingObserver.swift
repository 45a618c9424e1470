import Strata

/// An observer that keeps every ``/Strata/ObservedEvent`` in memory, for tests that assert what the
/// layers of a stack did (a retry was scheduled, a token refreshed once, a 304 was answered from
/// the store) without parsing logs.
///
/// ```swift
/// let recorder = RecordingObserver()
/// let stack = recorder.observing(RetryTransport(inner: canned, clock: TestClock()))
/// _ = try await stack.send(request)
/// #expect(recorder.events(RetryEvent.self).count == 1)
/// ```
public final class RecordingObserver: Sendable {
    private let recorded = LockedValue<[ObservedEvent]>([])

    /// Creates an empty recorder.
    public init() {}

    /// Records `observed`; pass it as an ``/Strata/ObservingTransport``'s observer.
    @Sendable public func record(_ observed: ObservedEvent) {
        recorded.withLock { $0.append(observed) }
    }

    /// `transport` wrapped in an ``/Strata/ObservingTransport`` that records into this recorder.
    public func observing(_ transport: any Transport) -> ObservingTransport {
        ObservingTransport(inner: transport, observer: record)
    }

    /// Every event recorded so far, in order, with its request identifier and attempt.
    package var all: [ObservedEvent] { recorded.withLock { $0 } }

    /// The recorded events of one feature's type, in order, such as `events(RetryEvent.self)`.
    public func events<Event: TransportEvent>(_ type: Event.Type) -> [Event] {
        all.compactMap { $0.event as? Event }
    }

    /// The names of the recorded events, in order, such as `["request.start", "retry.scheduled"]`.
    public var names: [String] { all.map(\.event.name) }
}
