#if STRATA_ZSTD
import CZstd

/// Decodes `zstd` bodies (RFC 8878) with the system zstd. The window is capped at 8 MiB, the
/// most RFC 8878 §3 lets a content-coding decoder be asked for, so a hostile frame header cannot
/// make it allocate more. Frames may follow one another, as the format allows.
final class ZstdDecoder: ContentDecoder {
    /// log2 of the largest window accepted: 8 MiB (RFC 8878 §3).
    private static let maxWindowLog: Int32 = 23

    private let context: OpaquePointer
    private var input = UnconsumedInput()
    /// The last call ended a frame with all its output flushed (zstd returned 0).
    private var frameEnded = false
    /// The last call filled its output: zstd may hold more for input it already consumed.
    private var outputMayFollow = false
    private(set) var consumedBytes: Int64 = 0

    /// Creates a decoder.
    ///
    /// - Throws: ``ContentDecodingError/outOfMemory(_:)`` when zstd cannot allocate its context.
    init() throws(ContentDecodingError) {
        guard let context = ZSTD_createDCtx() else { throw .outOfMemory(.zstd) }
        self.context = context
        guard ZSTD_isError(ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, Self.maxWindowLog)) == 0 else {
            ZSTD_freeDCtx(context)
            throw .outOfMemory(.zstd)
        }
    }

    deinit {
        ZSTD_freeDCtx(context)
    }

    func feed(_ bytes: ArraySlice<UInt8>) {
        input.append(bytes)
    }

    func nextOutput() throws(ContentDecodingError) -> ArraySlice<UInt8>? {
        while !input.isEmpty || outputMayFollow {
            var status = 0
            let context = context
            let (output, consumed) = input.consume { unconsumed -> (consumed: Int, result: ([UInt8], Int)) in
                var source = ZSTD_inBuffer(src: unconsumed.baseAddress, size: unconsumed.count, pos: 0)
                let produced = [UInt8](unsafeUninitializedCapacity: maxOutputBytes) { buffer, count in
                    var destination = ZSTD_outBuffer(dst: buffer.baseAddress, size: buffer.count, pos: 0)
                    status = ZSTD_decompressStream(context, &destination, &source)
                    count = destination.pos
                }
                return (source.pos, (produced, source.pos))
            }
            if ZSTD_isError(status) != 0 {
                throw .corrupt(.zstd, reason: String(cString: ZSTD_getErrorName(status)))
            }
            consumedBytes += Int64(consumed)
            outputMayFollow = output.count == maxOutputBytes
            if consumed > 0 || !output.isEmpty { frameEnded = status == 0 }
            if !output.isEmpty { return handedOut(output) }
            // A call that neither consumed nor produced would spin this loop forever.
            guard consumed > 0 || input.isEmpty else {
                throw .corrupt(.zstd, reason: "the decoder made no progress")
            }
        }
        return nil
    }

    func finish() throws(ContentDecodingError) {
        guard frameEnded || (consumedBytes == 0 && input.isEmpty) else { throw .truncated(.zstd) }
    }
}
#endif
