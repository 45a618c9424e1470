/// The buffered response body limit for the requests of the current task, when one call needs
/// another limit than its transport's.
///
/// A terminal transport's configured limit (`URLSessionTransport.Limits.maxResponseBodyBytes`,
/// `PinningTransport.Configuration.limits`) suits the ordinary response of an API; the one call
/// that fetches a large export can raise it for itself, and only itself:
/// ```swift
/// let export = try await ResponseBodyLimit.withMaxBytes(512 << 20) {
///     try await stack.send(HTTPRequest(url: exportURL))
/// }
/// ```
/// It travels as a task-local value, like ``RequestDeadline``, so every layer in between passes it
/// on untouched and a retry or redirect of that call keeps it. The innermost scope wins: it may
/// lower the limit as well as raise it.
///
/// Who honours it:
/// - ``URLSessionTransport`` and `PinningTransport` use it instead of their configured limit for
///   a buffered ``Transport/send(_:)``; past it the request fails with ``TransportError`` of kind
///   ``TransportError/Kind/invalidResponse`` whose message names `ResponseBodyLimit`. For a
///   compressed response it counts decoded bytes.
/// - A streamed body (``Transport/stream(_:_:)``) is never capped by a buffered limit: the
///   consumer holds what it chooses.
/// - ``ETagTransport`` does not coalesce a `GET` that has one with identical requests in flight
///   (their responses are read under other limits). Work a layer does on its own behalf
///   (``TransportEvents/detached(_:)``, a background revalidation) runs without it.
///
/// For a body too large for memory, stream it instead of raising this.
public enum ResponseBodyLimit {
    @TaskLocal static var value: Int?

    /// Runs `body` with buffered response bodies limited to `maxBytes` instead of the
    /// transports' configured limits.
    ///
    /// - Parameters:
    ///   - maxBytes: The most bytes one buffered response body may hold (at least 0).
    ///   - body: The work whose requests the limit applies to.
    public static func withMaxBytes<T>(_ maxBytes: Int, _ body: () async throws -> T) async rethrows -> T {
        try await $value.withValue(max(0, maxBytes), operation: body)
    }

    /// The limit of the current task, or `nil` when none is set (transports use their own).
    public static var current: Int? { value }

    /// The limit a terminal applies to a buffered body and the setting that decided it, for its
    /// error message: the task's limit when one is set, else `configured`, named by `setting`.
    package static func effective(configured: Int, setting: String) -> (limit: Int, setting: String) {
        guard let value else { return (configured, setting) }
        return (value, "ResponseBodyLimit.withMaxBytes")
    }
}
