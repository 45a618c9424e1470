extension HTTPBody {
    /// Produces a body's chunks in order, checking that their total matches the declared length.
    public struct Iterator: AsyncIteratorProtocol {
        private enum State {
            case bytes([UInt8])
            case file(FileBodySource, reader: FileChunkReader?)
            case singlePass(SinglePassBodySource, iterator: (any ChunkIterating)?)
            case finished
        }

        private var state: State
        private let expectedLength: Int64?
        private var produced: Int64 = 0

        init(source: Source, expectedLength: Int64?) {
            switch source {
            case .bytes(let bytes): state = .bytes(bytes)
            case .file(let file): state = .file(file, reader: nil)
            case .singlePass(let stream): state = .singlePass(stream, iterator: nil)
            }
            self.expectedLength = expectedLength
        }

        /// The next chunk, or `nil` after the last one.
        ///
        /// - Throws: ``HTTPBodyError/alreadyIterated`` for a single-pass body read before,
        ///   ``HTTPBodyError/lengthMismatch(expected:actual:)`` when the bytes do not match the
        ///   declared length, or what the file or the underlying sequence throws.
        public mutating func next() async throws -> ArraySlice<UInt8>? {
            let chunk: ArraySlice<UInt8>?
            switch state {
            case .finished:
                return nil
            case .bytes(let bytes):
                state = .finished
                produced = Int64(bytes.count)
                return bytes.isEmpty ? nil : bytes[...]
            case .file(let file, let existing):
                let reader = try existing ?? file.openReader()
                state = .file(file, reader: reader)
                chunk = try await reader.read(at: produced, upTo: FileChunkReader.chunkSize)
            case .singlePass(let stream, let existing):
                guard let iterator = existing ?? stream.take() else {
                    state = .finished
                    throw HTTPBodyError.alreadyIterated
                }
                state = .singlePass(stream, iterator: iterator)
                chunk = try await iterator.next()
            }
            return try account(for: chunk)
        }

        /// Counts `chunk` against the declared length: too many bytes fail at once, too few at the end.
        private mutating func account(for chunk: ArraySlice<UInt8>?) throws -> ArraySlice<UInt8>? {
            guard let chunk else {
                state = .finished
                if let expectedLength, produced != expectedLength {
                    throw HTTPBodyError.lengthMismatch(expected: expectedLength, actual: produced)
                }
                return nil
            }
            produced += Int64(chunk.count)
            if let expectedLength, produced > expectedLength {
                state = .finished
                throw HTTPBodyError.lengthMismatch(expected: expectedLength, actual: produced)
            }
            return chunk
        }
    }
}
