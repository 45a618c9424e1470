/// The chunks of a single-pass body: the sequence is iterated by whoever takes it first, and
/// nobody after.
final class SinglePassBodySource: Sendable {
    private let taken = LockedValue(false)
    private let makeIterator: @Sendable () -> any ChunkIterating

    init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks) where Chunks.Element == ArraySlice<UInt8> {
        makeIterator = { ChunkIteratorBox(chunks.makeAsyncIterator()) }
    }

    /// An iterator over the chunks the first time; `nil` every time after.
    func take() -> (any ChunkIterating)? {
        let isFirst = taken.withLock { taken in
            defer { taken = true }
            return !taken
        }
        return isFirst ? makeIterator() : nil
    }
}

/// An iterator over byte chunks whose concrete type is erased.
protocol ChunkIterating: AnyObject {
    func next() async throws -> ArraySlice<UInt8>?
}

/// Holds a concrete chunk iterator behind ``ChunkIterating``; used by one task at a time.
final class ChunkIteratorBox<Base: AsyncIteratorProtocol>: ChunkIterating where Base.Element == ArraySlice<UInt8> {
    private var base: Base

    init(_ base: Base) { self.base = base }

    func next() async throws -> ArraySlice<UInt8>? { try await base.next() }
}
