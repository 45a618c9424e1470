#if STRATA_BROTLI
import CBrotli

/// Decodes `br` bodies (RFC 7932) with the system brotli decoder, whose window is at most
/// 16 MiB (the large-window extension, which HTTP does not use, stays off). Bytes after the
/// end of the stream are refused.
final class BrotliDecoder: ContentDecoder {
    private let state: OpaquePointer
    private var input = UnconsumedInput()
    private var ended = false
    /// The last call stopped for room: the decoder holds output for input it already consumed.
    private var outputMayFollow = false
    private(set) var consumedBytes: Int64 = 0

    /// Creates a decoder.
    ///
    /// - Throws: ``ContentDecodingError/outOfMemory(_:)`` when brotli cannot allocate its state.
    init() throws(ContentDecodingError) {
        guard let state = BrotliDecoderCreateInstance(nil, nil, nil) else { throw .outOfMemory(.brotli) }
        self.state = state
    }

    deinit {
        BrotliDecoderDestroyInstance(state)
    }

    func feed(_ bytes: ArraySlice<UInt8>) {
        input.append(bytes)
    }

    func nextOutput() throws(ContentDecodingError) -> ArraySlice<UInt8>? {
        while !input.isEmpty || outputMayFollow {
            guard !ended || input.isEmpty else { throw .trailingBytes(.brotli) }
            var result = BROTLI_DECODER_RESULT_ERROR
            let state = state
            let (output, consumed) = input.consume { unconsumed -> (consumed: Int, result: ([UInt8], Int)) in
                var availableIn = unconsumed.count
                let produced = [UInt8](unsafeUninitializedCapacity: maxOutputBytes) { buffer, count in
                    var nextIn = unconsumed.baseAddress
                    var nextOut = buffer.baseAddress
                    var availableOut = buffer.count
                    result = BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
                    count = buffer.count - availableOut
                }
                let consumed = unconsumed.count - availableIn
                return (consumed, (produced, consumed))
            }
            consumedBytes += Int64(consumed)
            outputMayFollow = result == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT
            switch result {
            case BROTLI_DECODER_RESULT_SUCCESS:
                ended = true
            case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT, BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT:
                break
            default:
                let code = BrotliDecoderGetErrorCode(state)
                throw .corrupt(.brotli, reason: BrotliDecoderErrorString(code).map { String(cString: $0) } ?? "error \(code)")
            }
            if !output.isEmpty { return handedOut(output) }
            // With input and room for output, brotli always makes progress; a call that made none
            // would loop here for ever, so it is a corrupt stream rather than a hang.
            guard consumed > 0 || ended || (input.isEmpty && !outputMayFollow) else {
                throw .corrupt(.brotli, reason: "the decoder made no progress")
            }
        }
        return nil
    }

    func finish() throws(ContentDecodingError) {
        guard ended || (consumedBytes == 0 && input.isEmpty) else { throw .truncated(.brotli) }
    }
}
#endif
