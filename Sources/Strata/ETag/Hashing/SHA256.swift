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
    private var pending: [UInt8] = []
    private var totalByteCount: UInt64 = 0

    /// Creates a hasher with the initial hash value.
    init() { pending.reserveCapacity(64) }

    /// The digest of `bytes`.
    static func hash<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// The digest of `bytes` as 64 lower-case hexadecimal digits.
    static func hexDigest<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: hash(bytes).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]] }, as: UTF8.self)
    }

    /// Feeds more message bytes.
    mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes { update($0) } }
    }

    private mutating func update(_ input: UnsafeRawBufferPointer) {
        totalByteCount &+= UInt64(input.count)
        var offset = 0
        if !pending.isEmpty {
            offset = min(64 - pending.count, input.count)
            pending.append(contentsOf: input[0..<offset])
            guard pending.count == 64 else { return }
            pending.withUnsafeBytes { compress($0, at: 0) }
            pending.removeAll(keepingCapacity: true)
        }
        while input.count - offset >= 64 {
            compress(input, at: offset)
            offset += 64
        }
        pending.append(contentsOf: input[offset...])
    }

    /// Pads the message (FIPS 180-4 §5.1.1) and returns the 32-byte digest.
    mutating func finalize() -> [UInt8] {
        let bitLength = totalByteCount &* 8
        pending.append(0x80)
        if pending.count > 56 {
            pending.append(contentsOf: repeatElement(0, count: 64 - pending.count))
            pending.withUnsafeBytes { compress($0, at: 0) }
            pending.removeAll(keepingCapacity: true)
        }
        pending.append(contentsOf: repeatElement(0, count: 56 - pending.count))
        for shift in stride(from: 56, through: 0, by: -8) {
            pending.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        pending.withUnsafeBytes { compress($0, at: 0) }
        pending.removeAll()
        let words = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
        return words.flatMap { word in
            [UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8),
             UInt8(truncatingIfNeeded: word)]
        }
    }

    // FIPS 180-4 §6.2.2, the 64-byte block of `block` starting at `start`.
    private mutating func compress(_ block: UnsafeRawBufferPointer, at start: Int) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            for index in 0..<16 {
                let base = start + index * 4
                schedule[index] = UInt32(block[base]) << 24 | UInt32(block[base + 1]) << 16
                    | UInt32(block[base + 2]) << 8 | UInt32(block[base + 3])
            }
            for index in 16..<64 {
                let s0 = rotate(schedule[index - 15], 7) ^ rotate(schedule[index - 15], 18) ^ (schedule[index - 15] >> 3)
                let s1 = rotate(schedule[index - 2], 17) ^ rotate(schedule[index - 2], 19) ^ (schedule[index - 2] >> 10)
                schedule[index] = schedule[index - 16] &+ s0 &+ schedule[index - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = state
            Self.roundConstants.withUnsafeBufferPointer { constants in
                for index in 0..<64 {
                    let sum1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
                    let choice = (e & f) ^ (~e & g)
                    let temp1 = h &+ sum1 &+ choice &+ constants[index] &+ schedule[index]
                    let sum0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let temp2 = sum0 &+ majority
                    h = g
                    g = f
                    f = e
                    e = d &+ temp1
                    d = c
                    c = b
                    b = a
                    a = temp1 &+ temp2
                }
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d,
                     state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
        }
    }

    private func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }
}
