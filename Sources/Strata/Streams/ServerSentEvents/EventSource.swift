import Foundation

/// A server-sent event stream that follows its endpoint across dropped connections, as a
/// browser's `EventSource` does: an `AsyncSequence` of ``ServerSentEvent``s.
///
/// Use it to tail a notification or change feed through your whole stack. Every connection,
/// the first and each reconnect, goes through `transport` from the top, so a token refreshed by
/// ``ReauthTransport``, pins and ``RetryTransport``'s budget apply to each:
/// ```swift
/// let feed = EventSource(transport: stack, request: HTTPRequest(url: feedURL), lastEventID: savedID)
/// for try await event in feed {
///     try apply(event.data)
///     savedID = event.id
/// }
/// ```
/// From an endpoint, ``HTTPNetworkService/events(_:via:lastEventID:reconnect:maxEventBytes:clock:)``
/// builds the request (and attaches the current token) for every connection.
///
/// ## What it does
/// - Sends `Accept: text/event-stream` and `Cache-Control: no-cache`, and on every reconnect
///   `Last-Event-ID` with the last event ID the stream set (none when it set none, or set one a
///   header cannot carry).
/// - Reads `200` with `Content-Type: text/event-stream` as events (``HTTPBody/serverSentEvents(maxEventBytes:)``);
///   finishes on `204`; throws ``ServerSentEventError/unexpectedStatus(_:)`` for any other status and
///   ``ServerSentEventError/notEventStream(contentType:url:)`` for another content type, without
///   reconnecting.
/// - After the body ends or the connection drops, waits the server's `retry:` (or the policy's
///   delay) on `clock` and connects again; ``ReconnectPolicy`` bounds failed attempts.
/// - Cancelling the task that iterates, or breaking out of the loop, ends the connection at once.
///
/// Each iteration is its own series of connections. At most a few events wait unread: the
/// connection is read as fast as you consume.
public struct EventSource: AsyncSequence, Sendable {
    /// One event.
    public typealias Element = ServerSentEvent
    /// What iterating may throw: ``ServerSentEventError``, what the transport throws when
    /// connecting fails for good, or `CancellationError`.
    public typealias Failure = any Error

    /// The most bytes of a rejected response's body kept in
    /// ``ServerSentEventError/unexpectedStatus(_:)``: error bodies are small, and the error shows them.
    package static let maxRejectedBodyBytes = 64 * 1024
    /// How many events may wait unread before the connection is read no further.
    static let bufferedEvents = 16

    private let events: ProducedSequence<ServerSentEvent>

    /// Creates a stream that sends `request` through `transport` for every connection.
    ///
    /// - Parameters:
    ///   - transport: The whole stack; each connection goes through it from the top.
    ///   - request: The request, usually a `GET`. Sent as is, plus the event-stream headers.
    ///   - lastEventID: An ID saved from an earlier run, sent as `Last-Event-ID` on the first
    ///     connection too. Default: none.
    ///   - reconnect: When to connect again. Default: ``ReconnectPolicy/init(delay:maxDelay:maxFailedAttempts:)``'s
    ///     defaults; ``ReconnectPolicy/never`` reads one connection.
    ///   - maxEventBytes: The most bytes one line plus one event's data may take. Default: 1 MiB.
    ///   - clock: The clock reconnect waits are measured on. Default: `ContinuousClock()`; tests
    ///     pass `TestClock` (StrataTesting).
    public init(
        transport: any Transport, request: HTTPRequest, lastEventID: String? = nil,
        reconnect: ReconnectPolicy = ReconnectPolicy(),
        maxEventBytes: Int = ServerSentEventSequence.defaultMaxEventBytes,
        clock: some Clock<Duration> = ContinuousClock()
    ) {
        self.init(
            transport: transport, makeRequest: { request }, connectionTimeout: nil, lastEventID: lastEventID,
            reconnect: reconnect, maxEventBytes: maxEventBytes, clock: ErasedClock(clock), mapError: { $0 })
    }

    /// Creates a stream that builds its request anew for every connection (a fresh token), bounds
    /// each connection by `connectionTimeout`, and maps what it throws with `mapError`.
    init(
        transport: any Transport, makeRequest: @escaping @Sendable () async throws -> HTTPRequest,
        connectionTimeout: Duration?, lastEventID: String?, reconnect: ReconnectPolicy, maxEventBytes: Int,
        clock: ErasedClock, mapError: @escaping @Sendable (any Error) -> any Error
    ) {
        let connections = EventSourceConnections(
            transport: transport, makeRequest: makeRequest,
            connectionTimeout: connectionTimeout, policy: reconnect,
            maxEventBytes: maxEventBytes, clock: clock)
        events = ProducedSequence(capacity: Self.bufferedEvents) { handoff in
            do {
                try await connections.run(from: lastEventID, into: handoff)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                throw mapError(error)
            }
        }
    }

    /// Creates an iterator; its first `next()` connects.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: events.makeAsyncIterator())
    }

    /// Reads events, connecting and reconnecting as needed.
    public struct Iterator: AsyncIteratorProtocol {
        private var base: ProducedSequence<ServerSentEvent>.Iterator

        init(base: ProducedSequence<ServerSentEvent>.Iterator) { self.base = base }

        /// The next event, or `nil` when the stream finished (a 204, or the end of its one
        /// connection under ``ReconnectPolicy/never``).
        ///
        /// - Throws: ``ServerSentEventError``, what the transport throws when connecting fails
        ///   for good, or `CancellationError` when the calling task is cancelled.
        public mutating func next() async throws -> ServerSentEvent? { try await base.next() }
    }
}
