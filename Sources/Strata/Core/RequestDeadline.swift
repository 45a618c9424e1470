import Foundation

/// The whole-request deadline of the current task: how long a request may take in total, every
/// layer, retry wait and redirect included.
///
/// ``HTTPNetworkService`` sets it from an endpoint's ``EndpointProtocol/timeout``; set it
/// yourself around a call to any transport:
/// ```swift
/// let response = try await RequestDeadline.withTimeout(.seconds(5)) {
///     try await stack.send(request)
/// }
/// ```
/// It travels as a task-local value, not as a header or a `URLRequest` field: `URLRequest`'s
/// `timeoutInterval` always holds a value (60 s by default, indistinguishable from one you set)
/// and URLSession reads it as the longest wait between two packets, not as a total.
///
/// Who honours it:
/// - ``URLSessionTransport`` and `PinningTransport` stop the exchange when it passes and throw
///   ``TransportError`` of kind ``TransportError/Kind/timedOut``; a request that starts after it
///   passed is not sent.
/// - ``RetryTransport`` treats it as the budget for all its attempts: it never starts a wait that
///   would end past it (``RetryStopReason/timeoutWouldPass``).
/// - Work a layer does on its own behalf (``TransportEvents/detached(_:)``, such as a token
///   refresh) runs without it.
///
/// Nested deadlines keep the earlier one. A layer you write that waits should check
/// ``remaining`` before it waits; a terminal transport should stop at ``current``.
public enum RequestDeadline {
    /// The instant the request must be over, the timeout it came from and the setting that
    /// set it (both for messages).
    struct Value: Sendable {
        var instant: ContinuousClock.Instant
        var timeout: Duration
        var setting: String
    }

    @TaskLocal static var value: Value?

    /// Runs `body` with a deadline `timeout` from now, or the enclosing deadline if that one is
    /// earlier.
    ///
    /// - Parameters:
    ///   - timeout: The longest the requests sent inside `body` may take in total.
    ///   - body: The work bound by the deadline.
    public static func withTimeout<T>(_ timeout: Duration, _ body: () async throws -> T) async rethrows -> T {
        try await withTimeout(timeout, setBy: "EndpointProtocol.timeout or RequestDeadline", body)
    }

    /// ``withTimeout(_:_:)`` for a transport's own configured timeout: `setting` names it in the
    /// error, so the caller knows which value to raise.
    package static func withTimeout<T>(
        _ timeout: Duration, setBy setting: String,
        _ body: () async throws -> T
    ) async rethrows -> T {
        let instant = ContinuousClock.now.advanced(by: min(max(timeout, .zero), .seconds(86_400 * 365)))
        if let value, value.instant <= instant { return try await body() }
        return try await $value.withValue(Value(instant: instant, timeout: timeout, setting: setting), operation: body)
    }

    /// The current task's deadline, or `nil` when none is set.
    public static var current: ContinuousClock.Instant? { value?.instant }

    /// The time left until the current deadline (zero or negative once it passed), or `nil` when
    /// none is set.
    public static var remaining: Duration? { value.map { ContinuousClock.now.duration(to: $0.instant) } }

    /// Runs `body` without a deadline: work done on a layer's own behalf.
    static func withoutDeadline<T>(_ body: () async throws -> T) async rethrows -> T {
        try await $value.withValue(nil, operation: body)
    }

    /// Runs `body` without what the calling request set for itself: its deadline, its
    /// ``ResponseBodyLimit`` and its endpoint's ``EndpointCachePolicy``. Work done on a layer's
    /// own behalf (a token refresh, a background revalidation) is not that request's.
    static func withoutCallerScope<T>(_ body: () async throws -> T) async rethrows -> T {
        try await $value.withValue(nil) {
            try await ResponseBodyLimit.$value.withValue(nil) {
                try await EndpointCachePolicy.$current.withValue(.standard, operation: body)
            }
        }
    }

    /// The error a terminal transport throws when the deadline of `request` passed.
    package static func timedOut(method: HTTPMethod?, url: URL?) -> TransportError {
        let (timeout, setting) =
            value.map { (" of \($0.timeout.readable)", $0.setting) }
            ?? ("", "EndpointProtocol.timeout or RequestDeadline")
        return TransportError(
            .timedOut, method: method, url: url,
            message: "the whole request took longer than its timeout\(timeout) (\(setting))")
    }
}
