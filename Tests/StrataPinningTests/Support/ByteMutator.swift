import TestServer

/// Seeded mutations of byte strings for fuzz tests: each call applies one to four of overwrite,
/// insert, delete, duplicate a run, truncate, or insert a CRLF, half the time with a byte the
/// grammar under test cares about, so mutations reach interesting paths more often than uniform
/// random bytes would.
struct ByteMutator {
    /// Bytes that matter to the format being fuzzed.
    let interestingBytes: [UInt8]

    func mutate(_ input: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
            let byte =
                Bool.random(using: &random)
                ? interestingBytes.randomElement(using: &random) ?? 0
                : UInt8.random(in: 0...255, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0 where !bytes.isEmpty: bytes[position] = byte
            case 1: bytes.insert(byte, at: position)
            case 2 where !bytes.isEmpty: bytes.remove(at: position)
            case 3 where !bytes.isEmpty:
                let end = min(bytes.count, position + Int.random(in: 1...16, using: &random))
                bytes.insert(contentsOf: bytes[position..<end], at: position)
            case 4: bytes = Array(bytes.prefix(position))
            default: bytes.insert(contentsOf: Array("\r\n".utf8), at: position)
            }
        }
        return bytes
    }
}
