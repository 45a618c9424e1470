import Dispatch
import Foundation

/// The bytes of a Foundation `InputStream` as chunks, each read on a Dispatch thread (a stream's
/// `read` blocks, and must not block one of Swift's cooperative threads). Iterated once: the
/// body that holds it is single-pass.
struct InputStreamChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    /// The stream, reachable only under the lock: `InputStream` is not `Sendable`, and one read
    /// at a time is all a body makes.
    private let stream: LockedStream

    init(_ stream: InputStream) { self.stream = LockedStream(stream) }

    func makeAsyncIterator() -> Iterator { Iterator(stream: stream) }

    struct Iterator: AsyncIteratorProtocol {
        let stream: LockedStream

        mutating func next() async throws -> ArraySlice<UInt8>? {
            let stream = stream
            return try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(with: Result { try stream.read() }) }
            }
        }
    }

    final class LockedStream: @unchecked Sendable {
        // @unchecked: `stream` and `opened` are touched only inside `lock.withLock`.
        private let lock = LockedValue(())
        private let stream: InputStream
        private var opened = false

        init(_ stream: InputStream) { self.stream = stream }

        deinit { if opened { stream.close() } }

        /// The next chunk, or `nil` at the end of the stream.
        func read() throws -> ArraySlice<UInt8>? {
            try lock.withLock { _ in
                if !opened {
                    stream.open()
                    opened = true
                }
                var buffer = [UInt8](repeating: 0, count: FileChunkReader.chunkSize)
                let read = buffer.withUnsafeMutableBufferPointer { stream.read($0.baseAddress!, maxLength: $0.count) }
                if read > 0 { return buffer[0..<read] }
                if read == 0 { return nil }
                throw HTTPBodyError.unreadableStream(reason: stream.streamError.map { "\($0)" } ?? "the stream failed")
            }
        }
    }
}
