/// Reads one byte of each cache line of a buffer larger than the caches: what a request's trip
/// through the kernel (sockets, TLS records, the server on the other core) does to the caches
/// between two requests. After it, a layer's code and data are fetched again, as they are over
/// a network, and callgrind's cache simulation counts the lines a layer touches per request
/// (`COLD=1 scripts/layer-instructions.sh`).
final class CacheEvictor: @unchecked Sendable {
    // `@unchecked`: the buffer is written once, here, and only read afterwards, from any thread.
    private let buffer: UnsafeMutableRawBufferPointer
    private static let lineSize = 64

    /// An evictor reading `bytes` bytes (rounded up to a line).
    init(bytes: Int) {
        let count = (bytes + Self.lineSize - 1) / Self.lineSize * Self.lineSize
        buffer = .allocate(byteCount: count, alignment: Self.lineSize)
        buffer.initializeMemory(as: UInt8.self, repeating: 1)
    }

    deinit { buffer.deallocate() }

    /// Reads every line once; returns their sum so that the reads are not optimized away.
    @inline(never)
    @discardableResult
    func evict() -> UInt8 {
        var sum: UInt8 = 0
        for offset in stride(from: 0, to: buffer.count, by: Self.lineSize) { sum &+= buffer[offset] }
        return sum
    }
}
