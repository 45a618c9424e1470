import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Replaces what the caches hold, as a request's trip through the kernel (sockets, TLS records,
/// the server on the other core) does while a layer waits for its answer: it reads one byte of
/// each line of a buffer larger than the caches, and (on x86-64) calls code in each line of a
/// region larger than the first-level instruction cache, which data reads leave alone. After it,
/// a layer's code and data are fetched again, as over a network, and callgrind's cache
/// simulation counts the lines (`COLD=1 scripts/layer-instructions.sh`). Where the code cannot
/// be mapped (another architecture, executable memory refused), ``evictsCode`` is false and only
/// data is evicted.
final class CacheEvictor: @unchecked Sendable {
    // `@unchecked`: the buffer and the code are written once, here, and only read (or run)
    // afterwards, from any thread.
    private let buffer: UnsafeMutableRawBufferPointer
    /// `codeBytes` of code, a return at the start of each line, mapped executable; `nil` where
    /// this file does not know the machine's encodings.
    private let code: UnsafeMutableRawBufferPointer?
    private static let lineSize = 64
    /// Twice the largest first-level instruction cache of the machines this runs on (32–64 KiB).
    private static let codeBytes = 128 << 10

    /// An evictor reading `bytes` bytes (at least a line, at most 1 GiB).
    init(bytes: Int) {
        let lines = (min(max(bytes, 1), 1 << 30) + Self.lineSize - 1) / Self.lineSize
        buffer = .allocate(byteCount: lines * Self.lineSize, alignment: Self.lineSize)
        buffer.initializeMemory(as: UInt8.self, repeating: 1)
        code = Self.mapReturningLines()
    }

    /// Whether the instruction cache is evicted too (see the type's description).
    var evictsCode: Bool { code != nil }

    deinit {
        buffer.deallocate()
        if let code { munmap(code.baseAddress, code.count) }
    }

    /// Calls the code of every line, then reads every line of the buffer; returns the lines' sum
    /// so that the reads are kept. (One call per line, not one long run of code: valgrind
    /// failed translating 128 KiB of straight-line code.)
    @inline(never)
    @discardableResult
    func evict() -> UInt8 {
        if let code {
            for offset in stride(from: 0, to: code.count, by: Self.lineSize) {
                unsafeBitCast(code.baseAddress! + offset, to: (@convention(c) () -> Void).self)()
            }
        }
        var sum: UInt8 = 0
        for offset in stride(from: 0, to: buffer.count, by: Self.lineSize) { sum &+= buffer[offset] }
        return sum
    }

    /// `codeBytes` of x86-64 code: a `ret` at the start of each line, `int3` after it; written,
    /// then made executable (never both).
    private static func mapReturningLines() -> UnsafeMutableRawBufferPointer? {
        #if arch(x86_64)
        guard let region = mmap(nil, codeBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            region != MAP_FAILED
        else { return nil }
        let bytes = UnsafeMutableRawBufferPointer(start: region, count: codeBytes)
        bytes.initializeMemory(as: UInt8.self, repeating: 0xCC) // int3
        for offset in stride(from: 0, to: codeBytes, by: lineSize) { bytes[offset] = 0xC3 } // ret
        guard mprotect(region, codeBytes, PROT_READ | PROT_EXEC) == 0 else {
            munmap(region, codeBytes)
            return nil
        }
        return bytes
        #else
        return nil
        #endif
    }
}
