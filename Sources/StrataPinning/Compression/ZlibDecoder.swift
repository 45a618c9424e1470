import CZlib

/// Decodes `gzip` and `deflate` bodies with the system zlib.
///
/// - gzip: one member after another (RFC 1952 §2.2: a gzip file is a series of members), each
///   checked against its CRC-32 and length; bytes after a member that do not start another are
///   corrupt.
/// - deflate: RFC 9110 means the zlib format (RFC 1950), but servers have long sent the bare
///   RFC 1951 stream under this name, so the first two bytes decide, as curl and OkHttp's
///   predecessors do: a valid zlib header (method 8, window ≤ 32 KiB, header checksum) is zlib,
///   anything else raw deflate. Bytes after the end are refused.
final class ZlibDecoder: ContentDecoder {
    enum Format {
        case gzip
        case deflate
    }

    /// zlib's `windowBits` for the largest window (32 KiB); +16 asks for the gzip wrapper, a
    /// negative value for raw deflate (zlib.h, `inflateInit2`).
    private static let maxWindowBits: Int32 = 15

    private let format: Format
    private let coding: ContentCoding
    /// Allocated once and never moved: zlib's state points back at its `z_stream`.
    private let stream: UnsafeMutablePointer<z_stream>
    private var input = UnconsumedInput()
    private var started = false
    /// The current member (gzip) or stream (deflate) reached its end marker.
    private var ended = false
    /// The last call filled its output: zlib may hold more output for input it already consumed.
    private var outputMayFollow = false
    private(set) var consumedBytes: Int64 = 0

    /// Creates a decoder; the library is set up on the first coded bytes (deflate needs two to
    /// tell its format).
    init(_ format: Format) throws(ContentDecodingError) {
        self.format = format
        coding = format == .gzip ? .gzip : .deflate
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
    }

    deinit {
        if started { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    func feed(_ bytes: ArraySlice<UInt8>) {
        input.append(bytes)
    }

    func nextOutput() throws(ContentDecodingError) -> ArraySlice<UInt8>? {
        while !input.isEmpty || outputMayFollow {
            if !started {
                guard let windowBits = windowBits() else { return nil }
                guard strata_inflateInit2(stream, windowBits) == Z_OK else { throw .outOfMemory(coding) }
                started = true
            } else if ended && !input.isEmpty {
                // Another gzip member may follow (a deflate stream has one end only).
                guard format == .gzip else { throw .trailingBytes(coding) }
                inflateReset(stream)
                ended = false
            }
            if let output = try inflateNext() { return output }
        }
        return nil
    }

    func finish() throws(ContentDecodingError) {
        // An empty body (nothing fed) is empty, not truncated: Content-Encoding on a body of no
        // bytes says nothing about bytes that never came.
        guard ended || (!started && input.isEmpty) else { throw .truncated(coding) }
    }

    /// zlib's `windowBits` for this body, or `nil` while deflate's first two bytes are unknown.
    private func windowBits() -> Int32? {
        switch format {
        case .gzip:
            return Self.maxWindowBits + 16
        case .deflate:
            guard input.count >= 2 else { return nil }
            return Self.isZlibHeader(input[0], input[1]) ? Self.maxWindowBits : -Self.maxWindowBits
        }
    }

    /// RFC 1950 §2.2: CM = 8 (deflate), CINFO ≤ 7 (window ≤ 32 KiB), and CMF·256 + FLG a
    /// multiple of 31.
    static func isZlibHeader(_ cmf: UInt8, _ flg: UInt8) -> Bool {
        cmf & 0x0F == 8 && cmf >> 4 <= 7 && (UInt16(cmf) << 8 | UInt16(flg)) % 31 == 0
    }

    /// One `inflate` call over what is left of the input, into a new piece of at most
    /// ``maxOutputBytes``: the piece, or `nil` when the call produced nothing.
    private func inflateNext() throws(ContentDecodingError) -> ArraySlice<UInt8>? {
        var status: Int32 = Z_OK
        let stream = stream
        let (output, consumed) = input.consume { unconsumed -> (consumed: Int, result: ([UInt8], Int)) in
            var consumed = 0
            let produced = [UInt8](unsafeUninitializedCapacity: maxOutputBytes) { buffer, count in
                // zlib never writes through next_in; its type is not const only for old compilers.
                stream.pointee.next_in = UnsafeMutablePointer(mutating: unconsumed.baseAddress)
                stream.pointee.avail_in = UInt32(unconsumed.count)
                stream.pointee.next_out = buffer.baseAddress
                stream.pointee.avail_out = UInt32(buffer.count)
                status = inflate(stream, Z_NO_FLUSH)
                consumed = unconsumed.count - Int(stream.pointee.avail_in)
                count = buffer.count - Int(stream.pointee.avail_out)
                stream.pointee.next_in = nil
                stream.pointee.next_out = nil
            }
            return (consumed, (produced, consumed))
        }
        consumedBytes += Int64(consumed)
        outputMayFollow = output.count == maxOutputBytes
        switch status {
        case Z_STREAM_END:
            ended = true
        case Z_OK, Z_BUF_ERROR:
            // With input and room for output, zlib always makes progress; a call that made none
            // would spin the caller's loop forever, so it is refused rather than trusted.
            guard !output.isEmpty || consumed > 0 || input.isEmpty else {
                throw .corrupt(coding, reason: "zlib made no progress (status \(status))")
            }
        case Z_NEED_DICT:
            throw .corrupt(coding, reason: "it asks for a preset dictionary, which HTTP never provides")
        case Z_MEM_ERROR:
            throw .outOfMemory(coding)
        default:
            throw .corrupt(coding, reason: stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)")
        }
        return output.isEmpty ? nil : handedOut(output)
    }
}
