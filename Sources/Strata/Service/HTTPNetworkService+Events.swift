import Foundation

extension HTTPNetworkService {
    /// The endpoint's server-sent events, followed across dropped connections: an
    /// ``EventSource`` whose every connection is the endpoint's request, built anew (with the
    /// auth service's current token) and sent through the whole stack.
    ///
    /// ```swift
    /// for try await event in service.events(FeedAPI.changes, via: production, lastEventID: checkpoint) {
    ///     try await apply(event)
    ///     checkpoint = event.id
    /// }
    /// ```
    /// The endpoint's headers and `requiresAuth` apply as for every other call. Its
    /// ``EndpointProtocol/timeout`` bounds each connection (a timed-out connection is
    /// reconnected like a dropped one); its ``EndpointProtocol/acceptedStatusCodes`` do not
    /// apply: an event stream is a 200 (a 204 finishes it).
    ///
    /// - Parameters:
    ///   - endpoint: The event-stream endpoint.
    ///   - environment: Where it lives.
    ///   - lastEventID: An ID saved from an earlier run, sent as `Last-Event-ID` from the first
    ///     connection on. Default: none.
    ///   - reconnect: When to connect again. Default: ``ReconnectPolicy``'s defaults (the
    ///     server's `retry:` or 3 s, at most 6 failed attempts in a row);
    ///     ``ReconnectPolicy/never`` for a stream that must be sent once (an LLM completion).
    ///   - maxEventBytes: The most bytes one line plus one event's data may take. Default: 1 MiB.
    ///   - clock: The clock reconnect waits are measured on. Default: `ContinuousClock()`.
    /// - Returns: The events. Iterating throws ``NetworkError``: ``NetworkError/httpStatus(_:)``
    ///   for a status other than 200 or 204 (with up to 64 KiB of
    ///   its body), ``NetworkError/transport(_:)`` with a ``ServerSentEventError`` or the
    ///   transport's error otherwise, another ``NetworkError`` when the request cannot be built;
    ///   or `CancellationError`.
    public func events(
        _ endpoint: some EndpointProtocol, via environment: some APIEnvironmentProtocol,
        lastEventID: String? = nil, reconnect: ReconnectPolicy = ReconnectPolicy(),
        maxEventBytes: Int = ServerSentEventSequence.defaultMaxEventBytes,
        clock: some Clock<Duration> = ContinuousClock()
    ) -> EventSource {
        EventSource(
            transport: transport, makeRequest: { try await makeRequest(for: endpoint, via: environment) },
            connectionTimeout: endpoint.timeout, lastEventID: lastEventID, reconnect: reconnect,
            maxEventBytes: maxEventBytes, clock: ErasedClock(clock)
        ) { error in
            if case ServerSentEventError.unexpectedStatus(let response) = error { return NetworkError.httpStatus(response) }
            return Self.networkError(error)
        }
    }

    /// The endpoint's JSON Lines (NDJSON) body, each line decoded as `type` with the service's
    /// decoder as soon as it arrives: a bulk export or a log tail, never held whole.
    ///
    /// ```swift
    /// for try await order in service.jsonLines(ExportAPI.orders(since: lastRun), via: production, decoding: Order.self) {
    ///     try await warehouse.insert(order)
    /// }
    /// ```
    /// The request is sent when iteration starts, as ``stream(_:via:_:)`` sends it: the
    /// endpoint's headers, auth, accepted statuses and timeout (the whole exchange) apply.
    /// Breaking out of the loop or cancelling the task ends the exchange at once.
    ///
    /// - Parameters:
    ///   - endpoint: The endpoint.
    ///   - environment: Where it lives.
    ///   - type: The type of every line's value.
    ///   - maxLineBytes: The most bytes one line may hold. Default: 1 MiB.
    /// - Returns: The values, in order. Iterating throws what ``stream(_:via:_:)`` throws, and
    ///   ``NetworkError/decoding(_:body:)`` with a ``JSONLinesError`` for a line that does not
    ///   decode (its number and bytes) or is too long (no bytes).
    public func jsonLines<T: Decodable & Sendable>(
        _ endpoint: some EndpointProtocol,
        via environment: some APIEnvironmentProtocol,
        decoding type: T.Type,
        maxLineBytes: Int = JSONLineSequence<T>.defaultMaxLineBytes
    )
        -> some AsyncSequence<T, any Error> & Sendable
    {
        ProducedSequence<T>(capacity: Self.bufferedLines) { handoff in
            do {
                try await stream(endpoint, via: environment) { _, body in
                    try await Self.decodeLines(of: body, as: T.self, with: decoder, maxLineBytes: maxLineBytes, into: handoff)
                }
            } catch let error as JSONLinesError {
                throw NetworkError.decoding(error, body: Data()) // Too long: its bytes are not kept.
            }
        }
    }

    /// How many decoded lines may wait unread before the body is read no further.
    static let bufferedLines = 16

    /// Decodes `body`'s lines into `handoff`, chunk by chunk.
    private static func decodeLines<T: Decodable & Sendable>(
        of body: HTTPBody, as type: T.Type, with decoder: JSONDecoder,
        maxLineBytes: Int, into handoff: ElementHandoff<T>
    ) async throws {
        var splitter = JSONLineSplitter(maxLineBytes: maxLineBytes)
        var decoded: [T] = []
        func decode(_ line: ArraySlice<UInt8>, _ number: Int) throws {
            do {
                decoded.append(try JSONLineSequence<T>.Iterator.decode(line, number: number, with: decoder))
            } catch {
                throw NetworkError.decoding(error, body: Data(line))
            }
        }
        /// Hands over the values decoded so far, then throws what decoding threw, if anything.
        func deliver(_ decoding: () throws -> Void) async throws {
            var failure: (any Error)?
            do { try decoding() } catch { failure = error }
            for value in decoded { try await handoff.send(value) }
            decoded.removeAll(keepingCapacity: true)
            if let failure { throw failure }
        }
        for try await chunk in body {
            try await deliver { try splitter.split(chunk, decode) }
        }
        try await deliver { try splitter.finish(decode) }
    }
}
