/// The channel through which layers report ``TransportEvent``s, scoped to the current task.
///
/// ``LoggingTransport`` installs an observer and a request identifier for everything it sends;
/// the layers below report with ``emit(_:)``. Without an observer, `emit` costs one task-local
/// read and builds nothing. Write your own layers the same way:
/// ```swift
/// TransportEvents.emit(.cache(action: "stored", url: request.url))
/// ```
public enum TransportEvents {
    /// The logical request being sent in the current task.
    public struct Context: Sendable {
        /// The request identifier, stable across retries and resends.
        public var requestID: String
        /// The current attempt, starting at 1.
        public var attempt: Int
        /// Who receives events.
        public var observer: any TransportEventObserver
    }

    @TaskLocal private static var context: Context?

    /// The current task's context, or `nil` when nothing observes it.
    public static var current: Context? { context }

    /// Reports an event to the current observer. `kind` is evaluated only if there is one.
    public static func emit(_ kind: @autoclosure () -> TransportEvent.Kind) {
        guard let context else { return }
        context.observer.observe(TransportEvent(requestID: context.requestID, attempt: context.attempt, kind: kind()))
    }

    /// Runs `body` with events going to `observer` under `requestID`. The attempt number is
    /// kept from an enclosing context (1 when there is none).
    public static func observing<T>(requestID: String, observer: any TransportEventObserver,
                                    _ body: () async throws -> T) async rethrows -> T {
        let attempt = context?.attempt ?? 1
        return try await $context.withValue(Context(requestID: requestID, attempt: attempt, observer: observer),
                                            operation: body)
    }

    /// Runs `body` with the current context's attempt number set to `attempt`; retry layers call
    /// it so events below them carry the right attempt.
    public static func withAttempt<T>(_ attempt: Int, _ body: () async throws -> T) async rethrows -> T {
        guard var updated = context else { return try await body() }
        updated.attempt = attempt
        return try await $context.withValue(updated, operation: body)
    }
}
