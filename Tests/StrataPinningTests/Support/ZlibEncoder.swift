import CZlib
import Foundation

/// gzip and deflate encodings made with the system zlib, for the content-coding tests: what a
/// server sends, built in the test rather than committed.
enum ZlibEncoder {
    enum Format {
        /// RFC 1952.
        case gzip
        /// RFC 1950, what `deflate` means.
        case zlib
        /// RFC 1951 with no wrapper, which many servers send as `deflate`.
        case rawDeflate

        var windowBits: Int32 {
            switch self {
            case .gzip: 15 + 16
            case .zlib: 15
            case .rawDeflate: -15
            }
        }
    }

    /// `bytes` encoded whole in `format`.
    static func encode(_ bytes: some Collection<UInt8>, _ format: Format, level: Int32 = 6) -> [UInt8] {
        var stream = z_stream()
        precondition(strata_deflateInit2(&stream, level, format.windowBits) == Z_OK)
        defer { deflateEnd(&stream) }
        var input = Array(bytes)
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))))
        let written = input.withUnsafeMutableBufferPointer { input in
            output.withUnsafeMutableBufferPointer { output in
                stream.next_in = input.baseAddress
                stream.avail_in = UInt32(input.count)
                stream.next_out = output.baseAddress
                stream.avail_out = UInt32(output.count)
                precondition(deflate(&stream, Z_FINISH) == Z_STREAM_END)
                return output.count - Int(stream.avail_out)
            }
        }
        return Array(output.prefix(written))
    }

    /// A gzip member of `bytes` zeros (a power of two, at least 64 KiB; about 1.3 MB per GiB),
    /// made without compressing them: a 64 KiB run of zeros deflated after a full flush is the
    /// same block every time, so the body is the header, that block repeated, an empty final
    /// block and the trailer.
    static func zerosBomb(bytes: Int = 1 << 30) -> Data {
        let run = 64 * 1024
        var stream = z_stream()
        precondition(strata_deflateInit2(&stream, 9, -15) == Z_OK)
        defer { deflateEnd(&stream) }
        var zeros = [UInt8](repeating: 0, count: run)
        var block = [UInt8](repeating: 0, count: run)
        let blockSize = zeros.withUnsafeMutableBufferPointer { input in
            block.withUnsafeMutableBufferPointer { output in
                stream.next_in = input.baseAddress
                stream.avail_in = UInt32(run)
                stream.next_out = output.baseAddress
                stream.avail_out = UInt32(output.count)
                precondition(deflate(&stream, Z_FULL_FLUSH) == Z_OK && stream.avail_in == 0)
                return output.count - Int(stream.avail_out)
            }
        }
        let repeats = bytes / run
        // crc32_combine doubles the run's CRC up to the whole length (a power of two times the run).
        var crc: UInt = crc32(0, zeros, UInt32(run))
        var length = run
        while length < bytes {
            crc = crc32_combine(crc, crc, length)
            length *= 2
        }
        var body = Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3])
        body.reserveCapacity(10 + blockSize * repeats + 10)
        let blockData = Data(block.prefix(blockSize))
        for _ in 0..<repeats { body.append(blockData) }
        body.append(contentsOf: [0x03, 0x00]) // a final fixed-Huffman block with no symbol but its end
        for value: UInt32 in [UInt32(truncatingIfNeeded: crc), UInt32(truncatingIfNeeded: bytes)] {
            withUnsafeBytes(of: value.littleEndian) { body.append(contentsOf: $0) }
        }
        return body
    }
}
