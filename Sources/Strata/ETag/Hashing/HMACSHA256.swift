/// HMAC-SHA256 (RFC 2104, FIPS 198-1) over ``SHA256``: authenticates ``FileETagStore`` entries
/// with the store's secret key, so a file someone else wrote is never taken for an entry.
enum HMACSHA256 {
    /// SHA-256's block size in bytes.
    private static let blockSize = 64

    /// The 32-byte authentication code of `message` under `key` (any length).
    static func authenticationCode<Bytes: Sequence>(for message: Bytes, key: [UInt8]) -> [UInt8]
    where Bytes.Element == UInt8 {
        var block = key.count > blockSize ? SHA256.hash(key) : key
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5C })
        outer.update(inner.finalize())
        return outer.finalize()
    }

    /// Whether two codes are equal, in time that does not depend on where they differ.
    static func isEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
