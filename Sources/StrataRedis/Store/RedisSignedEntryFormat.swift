import Foundation
import StrataPinning

/// The value a ``RedisETagStore`` with ``RedisEntryAuthenticationKey``s writes: the entry (the
/// `FileETagStore` format, as an unsigned store writes it) behind a signature that binds it to
/// its Redis key, as pure functions over bytes.
///
/// ```
/// offset  size  field
///      0     8  magic "STRATAES"
///      8     1  format version (1)
///      9     8  the signing key's identifier (RedisEntryAuthenticationKey.identifier)
///     17    32  HMAC-SHA-256 under that key of: the Redis key's length (4 bytes, big-endian),
///               the Redis key, bytes 0..<17, and the entry
///     49     N  the entry: "STRATAET", its lengths, metadata (freshness, headers) and body
/// ```
/// The tag covers every byte of the value but itself, so no part of the entry (its body, its
/// exchange times and `Cache-Control`, its ETag) can change without the key; and it covers the
/// full Redis key (`<namespace>:<digest>`), so a signed entry copied to another URL's key or
/// into another namespace that shares the key does not verify there. The key's length comes
/// first, so no two (Redis key, value) pairs are signed as the same bytes.
///
/// An unsigned value (an entry an unkeyed store wrote, or anything planted) lacks the magic
/// and is ``RedisETagStoreEvent/AuthenticationFailure/unsigned``; it is never served.
enum RedisSignedEntryFormat {
    static let magic = Array("STRATAES".utf8)
    static let version: UInt8 = 1
    /// Magic, version and key identifier: the bytes before the tag.
    static let prefixByteCount = 8 + 1 + RedisEntryAuthenticationKey.identifierByteCount
    static let headerByteCount = prefixByteCount + OpenSSLHMACSHA256.codeByteCount

    /// Why a value is not a signed entry for its key, or could not be checked.
    enum Failure: Error, Hashable {
        /// The value is not authentic for this Redis key under the store's keys.
        case unauthenticated(RedisETagStoreEvent.AuthenticationFailure)
        /// OpenSSL computed no code; nothing is known about the value.
        case unavailable(OpenSSLHMACSHA256Error)
    }

    /// Returns `entry` signed with `key` for `redisKey`.
    ///
    /// - Throws: ``OpenSSLHMACSHA256Error`` when OpenSSL computes no code.
    static func sign(_ entry: Data, redisKey: String, key: RedisEntryAuthenticationKey) throws(OpenSSLHMACSHA256Error)
        -> Data
    {
        let prefix = magic + [version] + key.identifier
        let tag = try code(redisKey: redisKey, prefix: prefix, entry: entry, key: key)
        var value = Data(capacity: headerByteCount + entry.count)
        value.append(contentsOf: prefix)
        value.append(contentsOf: tag)
        value.append(entry)
        return value
    }

    /// Returns the entry in `value` when one of `keys` signed it for `redisKey`.
    ///
    /// Reads the key identifier to pick the one key that can verify it, so a store holding
    /// several keys during a rotation computes one code per read, as it does with one key.
    /// The entry returned is a slice of `value` sharing its bytes (an entry can be 8 MiB, so
    /// it is never copied here), so its indices go on from those of `value`.
    ///
    /// - Throws: ``Failure/unauthenticated(_:)`` saying why the value is not served, or
    ///   ``Failure/unavailable(_:)`` when OpenSSL computes no code.
    static func verified(_ value: Data, redisKey: String, keys: [RedisEntryAuthenticationKey]) throws(Failure) -> Data {
        // The header alone is copied to be parsed; the entry is only hashed, in place.
        let bytes = [UInt8](value.prefix(headerByteCount))
        guard bytes.count >= magic.count + 1, Array(bytes[0..<magic.count]) == magic, bytes[magic.count] == version
        else { throw .unauthenticated(.unsigned) }
        guard bytes.count == headerByteCount else { throw .unauthenticated(.tagMismatch) }
        let identifier = Array(bytes[(magic.count + 1)..<prefixByteCount])
        guard let key = keys.first(where: { $0.identifier == identifier }) else {
            throw .unauthenticated(.unknownKey(id: identifier.map { String(format: "%02x", $0) }.joined()))
        }
        let entry = value.dropFirst(headerByteCount)
        let expected: [UInt8]
        do {
            expected = try code(redisKey: redisKey, prefix: Array(bytes[0..<prefixByteCount]), entry: entry, key: key)
        } catch {
            throw .unavailable(error)
        }
        guard OpenSSLHMACSHA256.isEqual(expected, Array(bytes[prefixByteCount..<headerByteCount])) else {
            throw .unauthenticated(.tagMismatch)
        }
        return entry
    }

    /// The tag over the Redis key (length-prefixed), the value's prefix and the entry.
    private static func code(redisKey: String, prefix: [UInt8], entry: Data, key: RedisEntryAuthenticationKey)
        throws(OpenSSLHMACSHA256Error) -> [UInt8]
    {
        let name = Array(redisKey.utf8)
        let length = withUnsafeBytes(of: UInt32(name.count).bigEndian, Array.init)
        return try OpenSSLHMACSHA256.authenticationCode(for: [length, name, prefix, entry], key: key.bytes)
    }
}
