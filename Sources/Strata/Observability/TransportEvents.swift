/// The channel through which layers report ``TransportEvent``s, scoped to the current task.
///
/// ``LoggingTransport`` installs an observer for everything it sends; the layers below report
/// with ``emit(_:)``. Without an observer, `emit` costs one task-local read and builds nothing.
/// Write your own layers the same way:
/// ```swift
/// TransportEvents.emit(.cache(action: "stored", url: request.url))
/// ```
///
/// A *logical request* (one call at the outermost layer that opens a context) keeps one request
/// identifier and one attempt counter, whichever layers send it again: a layer that resends
/// (retry, reauth) wraps the resend in ``withNextAttempt(_:)``, so attempt numbers rise by one
/// per send across all layers, and a ``LoggingTransport`` anywhere below logs them under the same
/// identifier.
public enum TransportEvents {
    /// The logical request being sent in the current task.
    public struct Context: Sendable {
        /// The request identifier, stable across retries and resends.
        public var requestID: String
        /// The attempt the current send belongs to, starting at 1.
        public var attempt: Int
        /// Who receives events, or `nil` when nothing above observes them.
        public var observer: (any TransportEventObserver)?
        /// The attempts used so far by this logical request, shared by every layer.
        fileprivate let attempts: AttemptCounter
    }

    /// The highest attempt number handed out for one logical request.
    fileprivate final class AttemptCounter: Sendable {
        private let highest = LockedValue(1)
        func next() -> Int { highest.withLock { $0 += 1; return $0 } }
    }

    @TaskLocal private static var context: Context?

    /// The current task's context, or `nil` outside any logical request.
    public static var current: Context? { context }

    /// Reports an event to the current observer. `kind` is evaluated only if there is one.
    public static func emit(_ kind: @autoclosure () -> TransportEvent.Kind) {
        guard let context, let observer = context.observer else { return }
        observer.observe(TransportEvent(requestID: context.requestID, attempt: context.attempt, kind: kind()))
    }

    /// Runs `body` with events going to `observer`. The request identifier and attempt numbers
    /// of an enclosing logical request are kept; without one, a new logical request begins.
    public static func observing<T>(_ observer: any TransportEventObserver,
                                    _ body: () async throws -> T) async rethrows -> T {
        var updated = context ?? newContext()
        updated.observer = observer
        return try await $context.withValue(updated, operation: body)
    }

    /// Runs `body` inside the current logical request, beginning one (new identifier, attempt 1,
    /// no observer) when there is none, so that the layers below share its identifier.
    public static func withinRequest<T>(_ body: () async throws -> T) async rethrows -> T {
        guard context == nil else { return try await body() }
        return try await $context.withValue(newContext(), operation: body)
    }

    /// Runs `body` as the next attempt of the current logical request; layers that send a
    /// request again (a retry, a resend after a token refresh) wrap the resend in it.
    public static func withNextAttempt<T>(_ body: () async throws -> T) async rethrows -> T {
        var updated = context ?? newContext()
        updated.attempt = updated.attempts.next()
        return try await $context.withValue(updated, operation: body)
    }

    /// Runs `body` outside any logical request: work a layer does on its own behalf (such as a
    /// token refresh, which may send requests of its own) is not logged as part of the request
    /// that happened to trigger it.
    public static func detached<T>(_ body: () async throws -> T) async rethrows -> T {
        try await $context.withValue(nil, operation: body)
    }

    private static func newContext() -> Context {
        Context(requestID: makeRequestID(), attempt: 1, observer: nil, attempts: AttemptCounter())
    }

    /// Eight hex digits from the system's random source: unique enough to follow one request
    /// through a log, and carrying nothing about the request.
    static func makeRequestID() -> String {
        let hex = String(UInt32.random(in: .min ... .max), radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}
