import Synchronization

/// The one channel through which every layer reports its ``TransportEvent``s, scoped to the
/// current task: observers installed above (``ObservingTransport``, ``LoggingTransport``)
/// receive what layers below them emit.
///
/// A layer reports with ``emit(_:)``. Without an observer, `emit` costs one task-local read and
/// builds nothing: its argument is an autoclosure that is never evaluated.
///
/// ## Logical requests, identifiers and attempts
/// A *logical request* is one call at the outermost layer that opens one: it has a request
/// identifier (eight hex digits, random, carrying nothing about the request) and an attempt
/// counter shared by every layer. Observers receive each event with both (``ObservedEvent``).
/// - A layer that may send a request more than once (a retry, a resend after a token refresh)
///   wraps its whole `send` in ``withinRequest(_:)``, so that every send below shares one
///   identifier even when nothing above observes, and wraps each *resend* in
///   ``withNextAttempt(_:)``, so that attempt numbers rise by one per send across all layers.
/// - Every event carries the attempt of the send it belongs to. An event a layer reports about
///   an outcome it got from below (a retry scheduled after a 503, a token refresh after a 401)
///   belongs to the send that produced that outcome, which may be a later attempt than the
///   layer's own (a retry inside a resend, a resend inside a retry): the layer reports it within
///   ``withLatestAttempt(_:)``. The sends of one logical request are sequential, so the latest
///   send is the one whose outcome just came back.
/// - Work a layer does on its own behalf (a token refresh, which sends requests of its own)
///   runs in ``detached(_:)`` and is not reported as part of the request that triggered it.
///
/// See ``Transport`` for the whole contract of a layer.
public enum TransportEvents {
    /// Receives one event; called synchronously by the emitting layer.
    package typealias Observer = @Sendable (ObservedEvent) -> Void

    /// The logical request being sent in the current task.
    package struct Context: Sendable {
        /// The logical request: its identifier and the attempts it used, shared by every layer.
        let request: LogicalRequest
        /// The attempt the current send belongs to, starting at 1.
        var attempt: Int
        /// Everyone above who observes, outermost first.
        var observers: [Observer]

        /// The request identifier, stable across retries and resends.
        var requestID: String { request.identifier }
    }

    /// One logical request: its identifier, drawn only when someone reads it (a stack nobody
    /// observes never asks the system for a random number), and the highest attempt number
    /// handed out so far.
    final class LogicalRequest: Sendable {
        private let highestAttempt = Atomic(1)
        /// `0` until drawn; then the identifier's 32 random bits with bit 32 set.
        private let drawn = Atomic<UInt64>(0)

        func nextAttempt() -> Int { highestAttempt.add(1, ordering: .relaxed).newValue }

        /// The highest attempt number handed out so far: the latest send.
        var latestAttempt: Int { highestAttempt.load(ordering: .relaxed) }

        /// Eight hex digits from the system's random source: unique enough to follow one request
        /// through a log, and carrying nothing about the request. The same for every reader.
        var identifier: String {
            var bits = drawn.load(ordering: .relaxed)
            if bits == 0 {
                let candidate = UInt64(1) << 32 | UInt64(UInt32.random(in: .min ... .max))
                let (exchanged, original) = drawn.compareExchange(expected: 0, desired: candidate, ordering: .relaxed)
                bits = exchanged ? candidate : original
            }
            return Self.hex(UInt32(truncatingIfNeeded: bits))
        }

        /// `value` as eight lower-case hex digits, zero-padded.
        static func hex(_ value: UInt32) -> String {
            let digits = Array("0123456789abcdef".utf8)
            return String(unsafeUninitializedCapacity: 8) { buffer in
                for index in 0..<8 { buffer[index] = digits[Int(value >> UInt32(28 - 4 * index) & 0xF)] }
                return 8
            }
        }
    }

    @TaskLocal static var context: Context?

    /// Whether anything above the current task's layer observes events. Check it before
    /// collecting events somewhere `emit` cannot reach (another thread), to report them later
    /// in the calling task.
    public static var isObserved: Bool { context?.observers.isEmpty == false }

    /// Reports `event` to every observer above. `event` is evaluated only if there is one.
    ///
    /// Call it in the task that runs the request (task-local observers are invisible on other
    /// threads); keep the event small, as it is built on the request's path.
    public static func emit(_ event: @autoclosure () -> any TransportEvent) {
        guard let context, !context.observers.isEmpty else { return }
        let observed = ObservedEvent(event: event(), requestID: context.requestID, attempt: context.attempt)
        for observer in context.observers { observer(observed) }
    }

    /// Runs `body` inside the current logical request, beginning one (new identifier, attempt 1,
    /// no observer) when there is none, so that the layers below share its identifier.
    public static func withinRequest<T>(_ body: () async throws -> T) async rethrows -> T {
        guard context == nil else { return try await body() }
        return try await $context.withValue(newContext(), operation: body)
    }

    /// Runs `body` as the next attempt of the current logical request; a layer that sends a
    /// request again (a retry, a resend after a token refresh) wraps the resend in it. Without
    /// one (a layer that began none, as nothing below it can observe: see
    /// `EventObservationScope`), the resend begins its own, which nothing reads.
    public static func withNextAttempt<T>(_ body: () async throws -> T) async rethrows -> T {
        var updated = context ?? newContext()
        updated.attempt = updated.request.nextAttempt()
        return try await $context.withValue(updated, operation: body)
    }

    /// Runs `body` as the latest attempt of the current logical request: the send whose outcome
    /// the calling layer has just received from the layers below. A layer wraps what it reports
    /// about that outcome in it (a retry scheduled because of it, a refresh started by its 401),
    /// so those events carry the attempt number of the send that caused them. A resend started
    /// inside `body` with ``withNextAttempt(_:)`` still gets the next number.
    public static func withLatestAttempt<T>(_ body: () async throws -> T) async rethrows -> T {
        // Nobody observes: nothing would read the number.
        guard var updated = context, !updated.observers.isEmpty else { return try await body() }
        updated.attempt = updated.request.latestAttempt
        return try await $context.withValue(updated, operation: body)
    }

    /// Runs `body` outside any logical request: work a layer does on its own behalf (such as a
    /// token refresh, which may send requests of its own) is not reported as part of the request
    /// that happened to trigger it, and is not bound by that request's ``RequestDeadline``,
    /// ``ResponseBodyLimit`` or endpoint ``EndpointCachePolicy``.
    public static func detached<T>(_ body: () async throws -> T) async rethrows -> T {
        try await $context.withValue(nil) { try await RequestDeadline.withoutCallerScope(body) }
    }

    /// Runs `body` with `observer` added below the observers already installed. The request
    /// identifier and attempt numbers of an enclosing logical request are kept; without one, a
    /// new logical request begins. `body` receives the context it runs in.
    package static func observing<T>(
        _ observer: @escaping Observer,
        _ body: (Context) async throws -> T
    ) async rethrows -> T {
        var updated = context ?? newContext()
        updated.observers.append(observer)
        return try await $context.withValue(updated) { try await body(updated) }
    }

    private static func newContext() -> Context {
        Context(request: LogicalRequest(), attempt: 1, observers: [])
    }
}
