/// A decoder of one content-coded body, fed the coded bytes as they arrive and drained in pieces
/// of bounded size: however much a few coded bytes expand to, no call produces more than
/// ``maxOutputBytes``, so the caller checks its limits before the next piece is made.
///
/// Use: ``feed(_:)`` a chunk, call ``nextOutput()`` until it returns `nil` (the chunk is used
/// up), feed the next; at the body's end call ``finish()``, which fails unless the coding's end
/// marker was reached. Each conformer owns its C library state (freed in `deinit`); only Swift
/// values leave this folder. Not thread-safe: one body, one task.
protocol ContentDecoder: AnyObject {
    /// Adds coded bytes to decode. Feed only once ``nextOutput()`` returned `nil`.
    func feed(_ input: ArraySlice<UInt8>)
    /// The next piece of decoded bytes (never empty, at most ``maxOutputBytes``), or `nil` when
    /// the bytes fed so far are used up.
    ///
    /// - Throws: ``ContentDecodingError``; the decoder is then unusable.
    func nextOutput() throws(ContentDecodingError) -> ArraySlice<UInt8>?
    /// Checks the end of the body: the coding's end marker was reached (a body that fed no byte
    /// at all counts as an empty body).
    ///
    /// - Throws: ``ContentDecodingError/truncated(_:)`` when it was not.
    func finish() throws(ContentDecodingError)
    /// How many coded bytes the decoder has consumed so far (for the expansion-ratio guard).
    var consumedBytes: Int64 { get }
}

/// The largest piece any ``ContentDecoder`` hands out: large enough that per-call overhead is
/// noise, small enough that a limit is checked every 64 KiB of output.
let maxOutputBytes = 64 * 1024

/// A decoded piece as a decoder hands it out. A piece fills a buffer of ``maxOutputBytes`` as it
/// is made; one that fills less than a quarter of it is copied into storage of its own size, so
/// that a body of tiny coded blocks (a hostile server's one-byte deflate blocks, fed a byte at a
/// time) does not cost 64 KiB for every few bytes a reader keeps.
func handedOut(_ piece: [UInt8]) -> ArraySlice<UInt8> {
    guard piece.count < maxOutputBytes / 4 else { return piece[...] }
    // From a buffer pointer, not from the array: an array made from an array shares its storage.
    return piece.withUnsafeBufferPointer { ArraySlice($0) }
}

extension ContentCoding {
    /// A new decoder for a body in this coding.
    ///
    /// - Throws: ``ContentDecodingError/outOfMemory(_:)`` when the library could not set up, or
    ///   ``ContentDecodingError/corrupt(_:reason:)`` for a coding this build does not include.
    func makeDecoder() throws(ContentDecodingError) -> any ContentDecoder {
        switch self {
        case .gzip: return try ZlibDecoder(.gzip)
        case .deflate: return try ZlibDecoder(.deflate)
        case .brotli:
            #if STRATA_BROTLI
            return try BrotliDecoder()
            #else
            throw .corrupt(self, reason: "this build has no brotli decoder")
            #endif
        case .zstd:
            #if STRATA_ZSTD
            return try ZstdDecoder()
            #else
            throw .corrupt(self, reason: "this build has no zstd decoder")
            #endif
        }
    }
}

/// Coded bytes fed to a decoder and not yet consumed by it.
struct UnconsumedInput {
    private var bytes: [UInt8] = []
    private var offset = 0

    /// Whether every byte fed was consumed.
    var isEmpty: Bool { offset == bytes.count }
    /// How many bytes are left.
    var count: Int { bytes.count - offset }

    /// Adds `input` after what is left.
    mutating func append(_ input: ArraySlice<UInt8>) {
        if isEmpty {
            bytes = Array(input)
            offset = 0
        } else {
            bytes.append(contentsOf: input)
        }
    }

    /// The byte at `index` past the first unconsumed one.
    subscript(index: Int) -> UInt8 { bytes[offset + index] }

    /// Lends the unconsumed bytes to `body`, which returns how many of them it consumed.
    mutating func consume<R>(_ body: (UnsafeBufferPointer<UInt8>) -> (consumed: Int, result: R)) -> R {
        let start = offset
        let outcome = bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start...])) }
        offset += outcome.consumed
        return outcome.result
    }
}
