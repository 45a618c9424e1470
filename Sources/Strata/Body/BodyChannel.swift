/// A bounded hand-over of response-body chunks from a producer (a connection thread, a
/// URLSession delegate) to the task reading the body, with backpressure both ways.
///
/// The producer calls ``yield(_:)`` for each chunk and ``finish(throwing:)`` at the end. `yield`
/// returns `false` once more than ``highWatermark`` bytes wait unread: the producer stops reading
/// from the network until ``onDemand`` is called, which happens when the reader has taken the
/// buffer below ``lowWatermark`` (or gave up). So at most `highWatermark` plus one chunk is
/// buffered, whatever the body's size.
///
/// What is buffered is bounded in memory, not only in payload bytes: a chunk smaller than
/// ``coalescingBelowBytes`` that arrives while the reader is behind is copied onto the end of the
/// last unread chunk (up to ``coalescedChunkBytes``) instead of being kept as a chunk of its own.
/// A hostile server that sends one byte a frame (an HTTP/2 DATA frame, an HTTP/1.1 chunk, a TLS
/// record) would otherwise make every byte cost an array and a slice (about 80 bytes of heap
/// each), and a producer that cannot pause (an HTTP/2 stream window already granted, URLSession
/// on Linux) would fill the channel with them. Coalesced, the buffer's storage is at most two and
/// a half times its payload plus one `coalescedChunkBytes` whatever the mix of chunk sizes (about
/// its payload for a flood of tiny chunks), and a small chunk never keeps a larger buffer of the
/// producer's alive. (Measured: 8 paused HTTP/2 streams flooded with 1-byte DATA frames
/// grow the resident set by 9 MiB for their 8 MiB of stream windows, against 640 MiB before.)
///
/// The reader iterates ``body`` (single-pass). When it is done, or gives up early, the terminal
/// calls ``release()``: buffered chunks are dropped, the producer learns the reader is gone
/// (``yield(_:)`` returns `false` and ``isReleased`` is `true`, so it drains or closes the
/// connection), and a read after that throws ``HTTPBodyError/readAfterRelease``.
package final class BodyChannel: Sendable {
    private struct State {
        var chunks: [ArraySlice<UInt8>] = []
        var head = 0
        var bufferedBytes = 0
        var end: Result<Void, any Error>?
        var released = false
        /// The producer was told to stop and waits for ``BodyChannel/onDemand``.
        var producerPaused = false
        /// The last chunk is one the channel made to coalesce small chunks into, not one the
        /// producer handed over: only such a chunk grows (see ``BodyChannel/buffer(_:in:)``).
        var lastChunkIsCoalesced = false
        var reader: CheckedContinuation<ArraySlice<UInt8>?, any Error>?
    }

    /// How many read slots may pile up at the front of the chunk list before it is compacted.
    static let compactionThreshold = 32

    /// Chunks smaller than this are coalesced while the reader is behind. A chunk this large or
    /// larger costs at most a few percent of overhead kept on its own, so a well-behaved server's
    /// DATA frames (nginx sends 8 KiB) and TLS records are kept as they came, never copied.
    static let coalescingBelowBytes = 4 * 1024

    /// The most a coalesced chunk holds: the largest DATA frame and TLS record a server sends by
    /// default, so a reader gets no larger pieces than such a server would give it.
    package static let coalescedChunkBytes = 16 * 1024

    /// How many chunk slots the channel holds, read ones not yet dropped included (for tests).
    package var heldChunkSlots: Int { state.withLock { $0.chunks.count } }

    /// The storage the unread chunks occupy, in bytes (for tests): each chunk's capacity.
    package var unreadStorageBytes: Int { state.withLock { $0.chunks[$0.head...].reduce(0) { $0 + $1.capacity } } }

    /// The unread bytes above which the producer is asked to pause.
    package let highWatermark: Int
    /// The unread bytes below which a paused producer is asked to go on.
    package let lowWatermark: Int
    private let state = LockedValue(State())
    private let demand: LockedValue<(@Sendable () -> Void)?> = LockedValue(nil)

    /// Creates a channel.
    ///
    /// - Parameters:
    ///   - highWatermark: Unread bytes above which the producer pauses. Default: 256 KiB.
    ///   - lowWatermark: Unread bytes below which it resumes. Default: a quarter of the high one.
    package init(highWatermark: Int = 256 * 1024, lowWatermark: Int? = nil) {
        self.highWatermark = max(1, highWatermark)
        self.lowWatermark = min(self.highWatermark - 1, max(0, lowWatermark ?? highWatermark / 4))
    }

    /// Called (on the reader's thread, outside any lock) when a paused producer may go on, or
    /// when the reader released the body. Set it before the first ``yield(_:)``.
    package func onDemand(_ handler: @escaping @Sendable () -> Void) {
        demand.withLock { $0 = handler }
    }

    // MARK: Producer

    /// Hands `chunk` to the reader.
    ///
    /// - Returns: `true` when the producer may go on reading; `false` when it should pause until
    ///   ``onDemand`` is called, or stop because the reader released the body (``isReleased``).
    @discardableResult
    package func yield(_ chunk: ArraySlice<UInt8>) -> Bool {
        guard !chunk.isEmpty else { return !isReleased }
        let (reader, goOn): (CheckedContinuation<ArraySlice<UInt8>?, any Error>?, Bool) = state.withLock { state in
            guard !state.released, state.end == nil else { return (nil, false) }
            if let reader = state.reader {
                state.reader = nil
                return (reader, true)
            }
            Self.buffer(chunk, in: &state)
            state.bufferedBytes += chunk.count
            if state.bufferedBytes > highWatermark {
                state.producerPaused = true
                return (nil, false)
            }
            return (nil, true)
        }
        reader?.resume(returning: chunk)
        return goOn
    }

    /// Appends `chunk` to the unread chunks: a small one (see ``coalescingBelowBytes``) onto the
    /// last one while that stays within ``coalescedChunkBytes``, else as a chunk of its own,
    /// copied when small so that it does not keep the producer's larger buffer alive.
    private static func buffer(_ chunk: ArraySlice<UInt8>, in state: inout State) {
        guard chunk.count < coalescingBelowBytes else {
            state.chunks.append(chunk)
            state.lastChunkIsCoalesced = false
            return
        }
        if state.lastChunkIsCoalesced, let last = state.chunks.indices.last, last >= state.head,
            state.chunks[last].count + chunk.count <= coalescedChunkBytes
        {
            // In place: the chunk's storage is the channel's own and grows geometrically, so
            // appending byte by byte stays linear. Past a quarter of the size it grows to the
            // whole size at once: fewer blocks freed and allocated again while tiny allocations
            // fill the holes they leave (9 MiB against 13 for the paused-stream flood). So a
            // coalesced chunk's storage is at most 4 times its bytes at 4 KiB, and at most twice
            // below that; a producer's chunk never grows.
            let needed = state.chunks[last].count + chunk.count
            if needed > state.chunks[last].capacity, state.chunks[last].count >= coalescedChunkBytes / 4 {
                state.chunks[last].reserveCapacity(coalescedChunkBytes)
            }
            state.chunks[last].append(contentsOf: chunk)
        } else {
            // From a buffer pointer: an array made from a slice of a whole array shares its storage.
            state.chunks.append(chunk.withUnsafeBufferPointer { ArraySlice($0) })
            state.lastChunkIsCoalesced = true
        }
    }

    /// Ends the body: after the buffered chunks, the reader gets the end, or `error`.
    package func finish(throwing error: (any Error)? = nil) {
        let reader = state.withLock { state -> CheckedContinuation<ArraySlice<UInt8>?, any Error>? in
            guard state.end == nil else { return nil }
            state.end = error.map { .failure($0) } ?? .success(())
            guard state.head == state.chunks.count, let reader = state.reader else { return nil }
            state.reader = nil
            return reader
        }
        guard let reader else { return }
        if let error { reader.resume(throwing: error) } else { reader.resume(returning: nil) }
    }

    /// Whether the reader is done with the body: the producer should stop producing.
    package var isReleased: Bool { state.withLock { $0.released } }

    // MARK: Reader

    /// The body as a single-pass ``HTTPBody`` of `length` bytes when known.
    package func body(length: Int64?) -> HTTPBody {
        HTTPBody(Chunks(channel: self), length: length)
    }

    /// Drops what is buffered, tells the producer the reader is gone, and makes later reads fail.
    package func release() {
        let reader = state.withLock { state -> CheckedContinuation<ArraySlice<UInt8>?, any Error>? in
            state.released = true
            state.chunks = []
            state.head = 0
            state.bufferedBytes = 0
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume(throwing: HTTPBodyError.readAfterRelease)
        demand.withLock { $0 }?()
    }

    /// The next chunk, waiting for one; `nil` at the end.
    fileprivate func next() async throws -> ArraySlice<UInt8>? {
        try Task.checkCancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let (outcome, resumeProducer) = take(orPark: continuation)
                if resumeProducer { demand.withLock { $0 }?() }
                guard let outcome else { return }
                continuation.resume(with: outcome)
            }
        } onCancel: {
            // A reader cancelled while it waits gets CancellationError now, not when bytes come.
            let reader = state.withLock { state in
                defer { state.reader = nil }
                return state.reader
            }
            reader?.resume(throwing: CancellationError())
        }
    }

    /// A buffered chunk or the end, or `nil` after parking `continuation` to wait for one; and
    /// whether a paused producer may now go on.
    private func take(orPark continuation: CheckedContinuation<ArraySlice<UInt8>?, any Error>)
        -> (Result<ArraySlice<UInt8>?, any Error>?, Bool)
    {
        state.withLock { state in
            if state.released { return (.failure(HTTPBodyError.readAfterRelease), false) }
            if state.head < state.chunks.count {
                let chunk = state.chunks[state.head]
                // The reader owns the chunk now: the channel keeps no reference to its bytes.
                state.chunks[state.head] = []
                state.head += 1
                state.bufferedBytes -= chunk.count
                if state.head == state.chunks.count {
                    state.chunks.removeAll(keepingCapacity: true)
                    state.head = 0
                } else if state.head >= Self.compactionThreshold, state.head * 2 >= state.chunks.count {
                    // A producer that stays ahead never lets the list empty: drop the read slots
                    // once they are half of it, so the list stays bounded (amortized O(1) a read).
                    state.chunks.removeFirst(state.head)
                    state.head = 0
                }
                let resume = state.producerPaused && state.bufferedBytes <= lowWatermark
                if resume { state.producerPaused = false }
                return (.success(chunk), resume)
            }
            if let end = state.end { return (end.map { nil }, false) }
            // Cancelled before parking: the cancellation handler found no reader to wake.
            if Task.isCancelled { return (.failure(CancellationError()), false) }
            state.reader = continuation
            let resume = state.producerPaused
            state.producerPaused = false
            return (nil, resume)
        }
    }

    /// The channel's chunks as an `AsyncSequence`.
    private struct Chunks: AsyncSequence, Sendable {
        typealias Element = ArraySlice<UInt8>
        let channel: BodyChannel

        func makeAsyncIterator() -> Iterator { Iterator(channel: channel) }

        struct Iterator: AsyncIteratorProtocol {
            let channel: BodyChannel
            mutating func next() async throws -> ArraySlice<UInt8>? { try await channel.next() }
        }
    }
}
