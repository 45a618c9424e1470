// Compiled into every fuzz target by scripts/fuzz.sh (never part of a SwiftPM target), with
// Tests/TestServer/SeededGenerator.swift: libFuzzer's entry point, and the way a target reads
// its input.

/// The bytes libFuzzer hands a target, read front to back: a few choices first (which mode, where
/// to split), then the payload. Reading past the end yields zeros, so every input is usable.
struct FuzzInput {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The next byte, or 0 once every byte was read.
    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Every byte not read yet.
    mutating func rest() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[min(offset, bytes.count)...])
    }
}

extension SeededGenerator {
    /// Cuts `count` bytes into consecutive ranges of 1 to `maxPiece` bytes (seeded from the
    /// input, so a saved crash replays the same cuts).
    mutating func pieces(of count: Int, maxPiece: Int = 16) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        while start < count {
            let end = min(count, start + Int.random(in: 1...maxPiece, using: &self))
            ranges.append(start..<end)
            start = end
        }
        return ranges
    }
}

/// Ends the process with `message` when a differential check fails: libFuzzer saves the input
/// as a crash, and the message says which property broke.
func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("fuzz check failed: \(message())") }
}

/// libFuzzer's entry point: runs the target's `fuzz(_:)` on one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func libFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(Array(UnsafeBufferPointer(start: data, count: size)))
    fuzz(&input)
    return 0
}
