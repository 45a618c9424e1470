extension HTTPBody {
    /// The same bytes, with `onChunk` told of each chunk as the reader takes it and `onEnd` told
    /// once when the reader reaches the end: how a layer counts or copies a body without holding
    /// it or reading it ahead of the reader. The result is single-pass, like the response bodies
    /// it is made for; an error while reading reaches the reader, and `onEnd` is not called.
    package func tapped(
        onChunk: @escaping @Sendable (ArraySlice<UInt8>) -> Void,
        onEnd: @escaping @Sendable () -> Void = {}
    ) -> HTTPBody {
        HTTPBody(TappedChunks(base: self, onChunk: onChunk, onEnd: onEnd), length: length)
    }
}

/// A body's chunks passed through a tap.
private struct TappedChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let base: HTTPBody
    let onChunk: @Sendable (ArraySlice<UInt8>) -> Void
    let onEnd: @Sendable () -> Void

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), onChunk: onChunk, onEnd: onEnd)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: HTTPBody.Iterator
        let onChunk: @Sendable (ArraySlice<UInt8>) -> Void
        let onEnd: @Sendable () -> Void
        var ended = false

        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard !ended else { return nil }
            guard let chunk = try await base.next() else {
                ended = true
                onEnd()
                return nil
            }
            onChunk(chunk)
            return chunk
        }
    }
}
