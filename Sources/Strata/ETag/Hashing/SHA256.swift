/// SHA-256 (FIPS 180-4), written in Swift because Foundation on Linux has no CryptoKit.
///
/// ETag keys use it as a one-way hash of credentials (so a key never reveals a token) and
/// ``FileETagStore`` uses it to name entry files and to checksum their contents. It is tested
/// against the FIPS 180-4 / NIST known answers.
struct SHA256: Sendable {
    /// The digest length in bytes.
    static let digestByteCount = 32

    // FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the
    // first 64 primes.
    private static let roundConstants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    // FIPS 180-4 §5.3.3: the first 32 bits of the fractional parts of the square roots of the
    // first 8 primes.
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
    /// Message bytes not yet compressed (fewer than 64), in place: a hasher allocates nothing.
    private var pending: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var pendingCount = 0
    private var totalByteCount: UInt64 = 0

    /// Creates a hasher with the initial hash value.
    init() {}

    /// The digest of `bytes`.
    static func hash<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// The digest of `bytes` as 64 lower-case hexadecimal digits.
    static func hexDigest<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalizeHex()
    }

    /// Feeds more message bytes.
    mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes { update($0) } }
    }

    /// Feeds the UTF-8 bytes of `text`.
    mutating func update(utf8 text: String) {
        var text = text
        text.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    private mutating func update(_ input: UnsafeRawBufferPointer) {
        guard let base = input.baseAddress, !input.isEmpty else { return }
        totalByteCount &+= UInt64(input.count)
        var offset = 0
        if pendingCount > 0 {
            offset = min(64 - pendingCount, input.count)
            let start = pendingCount
            withUnsafeMutableBytes(of: &pending) { $0.baseAddress!.advanced(by: start).copyMemory(from: base, byteCount: offset) }
            pendingCount += offset
            guard pendingCount == 64 else { return }
            var block = pending
            withUnsafeBytes(of: &block) { compress(blocks: $0.baseAddress!, count: 1) }
            pendingCount = 0
        }
        let blocks = (input.count - offset) / 64
        if blocks > 0 {
            compress(blocks: base + offset, count: blocks)
            offset += blocks * 64
        }
        let left = input.count - offset
        if left > 0 {
            withUnsafeMutableBytes(of: &pending) { $0.baseAddress!.copyMemory(from: base + offset, byteCount: left) }
            pendingCount = left
        }
    }

    /// Pads the message (FIPS 180-4 §5.1.1) and returns the 32-byte digest.
    mutating func finalize() -> [UInt8] {
        var words = finalizeWords()
        return withUnsafeBytes(of: &words) { words in
            [UInt8](unsafeUninitializedCapacity: 32) { buffer, count in
                let bytes = UnsafeMutableRawPointer(buffer.baseAddress!)
                for index in 0..<8 {
                    let word = words.load(fromByteOffset: index * 4, as: UInt32.self)
                    bytes.storeBytes(of: word.bigEndian, toByteOffset: index * 4, as: UInt32.self)
                }
                count = 32
            }
        }
    }

    /// Pads the message and returns the digest as 64 lower-case hexadecimal digits.
    mutating func finalizeHex() -> String {
        var words = finalizeWords()
        let digits: StaticString = "0123456789abcdef"
        return withUnsafeBytes(of: &words) { words in
            String(unsafeUninitializedCapacity: 64) { buffer in
                for index in 0..<64 {
                    let word = words.load(fromByteOffset: index / 8 * 4, as: UInt32.self)
                    buffer[index] = digits.utf8Start[Int(word >> UInt32(28 - 4 * (index % 8)) & 0xF)]
                }
                return 64
            }
        }
    }

    /// Pads the message and returns the eight words of the digest.
    private mutating func finalizeWords() -> (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) {
        let bitLength = totalByteCount &* 8
        var tail:
            (
                UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
            ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let count = pendingCount
        // The pending bytes, 0x80, zeros, and the bit length in the last 8 bytes of one or two blocks.
        let blocks = count < 56 ? 1 : 2
        withUnsafeMutableBytes(of: &tail) { tail in
            withUnsafeBytes(of: &pending) { tail.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: count) }
            tail[count] = 0x80
            tail.storeBytes(of: bitLength.bigEndian, toByteOffset: blocks * 64 - 8, as: UInt64.self)
        }
        withUnsafeBytes(of: &tail) { compress(blocks: $0.baseAddress!, count: blocks) }
        pendingCount = 0
        return state
    }

    // FIPS 180-4 §6.2.2, for `count` consecutive 64-byte blocks at `blocks`.
    private mutating func compress(blocks: UnsafeRawPointer, count: Int) {
        Self.roundConstants.withUnsafeBufferPointer { constants in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
                Self.compress(
                    &state, blocks: blocks, count: count, constants: constants.baseAddress!,
                    schedule: schedule.baseAddress!)
            }
        }
    }

    /// The compression loop, free of closures: the working variables stay in registers.
    private static func compress(
        _ state: inout (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32),
        blocks: UnsafeRawPointer, count: Int, constants: UnsafePointer<UInt32>,
        schedule: UnsafeMutablePointer<UInt32>
    ) {
        var (h0, h1, h2, h3, h4, h5, h6, h7) = state
        for block in 0..<count {
            let base = blocks + block * 64
            for index in 0..<16 {
                schedule[index] = UInt32(bigEndian: base.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
            }
            for index in 16..<64 {
                let w15 = schedule[index - 15], w2 = schedule[index - 2]
                let s0 = rotate(w15, 7) ^ rotate(w15, 18) ^ (w15 >> 3)
                let s1 = rotate(w2, 17) ^ rotate(w2, 19) ^ (w2 >> 10)
                schedule[index] = schedule[index - 16] &+ s0 &+ schedule[index - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = (h0, h1, h2, h3, h4, h5, h6, h7)
            for index in 0..<64 {
                let sum1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
                let choice = (e & f) ^ (~e & g)
                let temp1 = h &+ sum1 &+ choice &+ constants[index] &+ schedule[index]
                let sum0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                h = g
                g = f
                f = e
                e = d &+ temp1
                d = c
                c = b
                b = a
                a = temp1 &+ sum0 &+ majority
            }
            h0 &+= a; h1 &+= b; h2 &+= c; h3 &+= d; h4 &+= e; h5 &+= f; h6 &+= g; h7 &+= h
        }
        state = (h0, h1, h2, h3, h4, h5, h6, h7)
    }

    @inline(__always)
    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 &- count))
    }
}
