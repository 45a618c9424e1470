/// The Redis Cluster hash slot of a key: `CRC16(key) mod 16384`, hashing only the key's hash
/// tag when it has one (Redis Cluster specification, "Key distribution model" and "Hash tags").
///
/// A cluster gives each of its 16,384 slots to one primary; a client that computes slots the
/// way the servers do sends each command to the right node the first time.
enum RedisHashSlot {
    /// The number of slots of every Redis Cluster (fixed by the specification).
    static let count = 16_384

    /// The slot of `key`. When the key holds a `{` followed later by a `}` with at least one
    /// byte between the first `{` and the first `}` after it, only those bytes are hashed, so
    /// `{user1000}.following` and `{user1000}.followers` share a slot; otherwise (no `{`, no `}`
    /// after it, or `{}`) the whole key is.
    static func of<Key: Collection<UInt8>>(_ key: Key) -> Int {
        Int(crc16(hashedPart(of: key)) & UInt16(count - 1))
    }

    /// The bytes of `key` that decide its slot: its hash tag, or the whole key.
    static func hashedPart<Key: Collection<UInt8>>(of key: Key) -> Key.SubSequence {
        guard let open = key.firstIndex(of: UInt8(ascii: "{")) else { return key[...] }
        let tagStart = key.index(after: open)
        guard let close = key[tagStart...].firstIndex(of: UInt8(ascii: "}")), close != tagStart else { return key[...] }
        return key[tagStart..<close]
    }

    /// CRC-16/XMODEM (polynomial 0x1021, initial value 0, no reflection, no final XOR): the
    /// variant the specification names, whose check value for "123456789" is 0x31C3.
    static func crc16<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc = (crc << 8) ^ table[Int((crc >> 8) ^ UInt16(byte))]
        }
        return crc
    }

    /// The CRC of each byte value, so a key costs one lookup per byte instead of eight shifts.
    private static let table: [UInt16] = (0..<256).map { value in
        var crc = UInt16(value) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        return crc
    }
}
