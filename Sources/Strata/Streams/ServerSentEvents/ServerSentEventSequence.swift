/// The events of one `text/event-stream` body, parsed as its bytes arrive: what
/// ``HTTPBody/serverSentEvents(maxEventBytes:)`` returns.
///
/// Use it inside ``Transport/stream(_:_:)`` or ``HTTPNetworkService/stream(_:via:_:)`` to read
/// one response's events; use ``EventSource`` to follow a stream across reconnects. The body ends
/// the sequence: a last block not ended by an empty line is discarded, as the standard says.
public struct ServerSentEventSequence: AsyncSequence, Sendable {
    /// One dispatched event.
    public typealias Element = ServerSentEvent
    /// What iterating may throw: ``ServerSentEventError/eventTooLarge(limit:)``, or what reading
    /// the body throws.
    public typealias Failure = any Error

    /// The default most bytes one line plus one event's data may take: 1 MiB, far above what
    /// streaming APIs send in one event (LLM tokens, notifications, change-feed records), small
    /// enough to hold per connection.
    public static let defaultMaxEventBytes = 1 << 20

    private let body: HTTPBody
    private let maxEventBytes: Int

    init(body: HTTPBody, maxEventBytes: Int) {
        self.body = body
        self.maxEventBytes = maxEventBytes
    }

    /// Creates an iterator that reads the body.
    public func makeAsyncIterator() -> Iterator {
        Iterator(chunks: body.makeAsyncIterator(), parser: ServerSentEventParser(maxEventBytes: maxEventBytes))
    }

    /// Reads chunks and hands out the events each completes, in order.
    public struct Iterator: AsyncIteratorProtocol {
        private var chunks: HTTPBody.Iterator
        private var parser: ServerSentEventParser
        private var pending: [ServerSentEvent] = []
        private var next = 0
        private var finished = false
        /// What parsing threw, reported after the events the same chunk completed before it.
        private var failure: ServerSentEventError?

        init(chunks: HTTPBody.Iterator, parser: ServerSentEventParser) {
            self.chunks = chunks
            self.parser = parser
        }

        /// The next event, or `nil` when the body ended.
        ///
        /// - Throws: ``ServerSentEventError/eventTooLarge(limit:)``, or what reading the body throws.
        public mutating func next() async throws -> ServerSentEvent? {
            while next == pending.count {
                if let failure {
                    finished = true
                    self.failure = nil
                    throw failure
                }
                guard !finished else { return nil }
                pending.removeAll(keepingCapacity: true)
                next = 0
                guard let chunk = try await chunks.next() else {
                    finished = true
                    parser.finish()
                    return nil
                }
                do { try parser.parse(chunk, into: &pending) } catch { failure = error }
            }
            defer { next += 1 }
            return pending[next]
        }
    }
}

extension HTTPBody {
    /// The body read as a `text/event-stream`: its events, parsed by the WHATWG rules as the
    /// bytes arrive, never holding more than one event.
    ///
    /// ```swift
    /// try await transport.stream(request) { head, body in
    ///     for try await event in body.serverSentEvents() where event.type == "progress" {
    ///         print(event.data)
    ///     }
    /// }
    /// ```
    ///
    /// - Parameter maxEventBytes: The most bytes one line plus one event's data may take; past it
    ///   iteration throws ``ServerSentEventError/eventTooLarge(limit:)``. Default: 1 MiB.
    /// - Returns: The events, in order.
    public func serverSentEvents(maxEventBytes: Int = ServerSentEventSequence.defaultMaxEventBytes) -> ServerSentEventSequence {
        ServerSentEventSequence(body: self, maxEventBytes: maxEventBytes)
    }
}
