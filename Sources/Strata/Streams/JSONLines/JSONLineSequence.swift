import Foundation

/// The values of a JSON Lines (NDJSON) body, each line decoded as it arrives: what
/// ``HTTPBody/jsonLines(of:decoder:maxLineBytes:)`` returns.
///
/// Use it inside ``Transport/stream(_:_:)`` or ``HTTPNetworkService/stream(_:via:_:)``; from an
/// endpoint, ``HTTPNetworkService/jsonLines(_:via:decoding:maxLineBytes:)`` does the same in one call.
/// Line 1 is decoded as soon as its `\n` arrives, whatever follows; at most one line is held.
public struct JSONLineSequence<Element: Decodable>: AsyncSequence, Sendable {
    /// What iterating may throw: ``JSONLinesError``, or what reading the body throws.
    public typealias Failure = any Error

    /// The default most bytes one line may hold: 1 MiB, above any record a bulk export or log
    /// API sends on one line, small enough to hold.
    public static var defaultMaxLineBytes: Int { 1 << 20 }

    private let body: HTTPBody
    private let decoder: JSONDecoder
    private let maxLineBytes: Int

    init(body: HTTPBody, decoder: JSONDecoder, maxLineBytes: Int) {
        self.body = body
        self.decoder = decoder
        self.maxLineBytes = maxLineBytes
    }

    /// Creates an iterator that reads the body.
    public func makeAsyncIterator() -> Iterator {
        Iterator(chunks: body.makeAsyncIterator(), decoder: decoder, splitter: JSONLineSplitter(maxLineBytes: maxLineBytes))
    }

    /// Reads chunks and hands out the values of the lines each completes, in order.
    public struct Iterator: AsyncIteratorProtocol {
        private var chunks: HTTPBody.Iterator
        private let decoder: JSONDecoder
        private var splitter: JSONLineSplitter
        private var pending: [Element] = []
        private var next = 0
        private var finished = false
        /// What a line threw, reported after the values the same chunk completed before it.
        private var failure: (any Error)?

        init(chunks: HTTPBody.Iterator, decoder: JSONDecoder, splitter: JSONLineSplitter) {
            self.chunks = chunks
            self.decoder = decoder
            self.splitter = splitter
        }

        /// The next line's value, or `nil` after the last line.
        ///
        /// - Throws: ``JSONLinesError`` for a line too long or not decodable, or what reading
        ///   the body throws.
        public mutating func next() async throws -> Element? {
            while next == pending.count {
                if let failure {
                    finished = true
                    self.failure = nil
                    throw failure
                }
                guard !finished else { return nil }
                next = 0
                var decoded: [Element] = []
                let decoder = decoder
                func decode(_ line: ArraySlice<UInt8>, _ number: Int) throws {
                    decoded.append(try Self.decode(line, number: number, with: decoder))
                }
                do {
                    if let chunk = try await chunks.next() {
                        try splitter.split(chunk, decode)
                    } else {
                        finished = true
                        try splitter.finish(decode)
                    }
                } catch {
                    failure = error
                }
                pending = decoded
            }
            defer { next += 1 }
            return pending[next]
        }

        /// Line `number` decoded as `Element`.
        static func decode(_ line: ArraySlice<UInt8>, number: Int, with decoder: JSONDecoder) throws(JSONLinesError) -> Element {
            do {
                return try decoder.decode(Element.self, from: Data(line))
            } catch {
                throw .invalidLine(line: number, underlying: error)
            }
        }
    }
}

extension HTTPBody {
    /// The body read as JSON Lines (NDJSON): each line decoded as `type` as soon as it arrives.
    ///
    /// Lines end with `\n` or `\r\n`; blank lines are skipped; a last line without its `\n` is
    /// decoded too.
    /// ```swift
    /// try await transport.stream(exportRequest) { head, body in
    ///     for try await row in body.jsonLines(of: Row.self) { try await database.insert(row) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type of every line's value.
    ///   - decoder: The decoder for each line. Default: a plain `JSONDecoder`.
    ///   - maxLineBytes: The most bytes a line may hold; a longer one throws
    ///     ``JSONLinesError/lineTooLong(line:limit:)``. Default: 1 MiB.
    /// - Returns: The values, in order; a line that does not decode throws
    ///   ``JSONLinesError/invalidLine(line:underlying:)`` naming its 1-based number.
    public func jsonLines<T: Decodable>(
        of type: T.Type, decoder: JSONDecoder = JSONDecoder(),
        maxLineBytes: Int = JSONLineSequence<T>.defaultMaxLineBytes
    ) -> JSONLineSequence<T> {
        JSONLineSequence(body: self, decoder: decoder, maxLineBytes: maxLineBytes)
    }
}
