import Foundation
import StrataPinning

/// A secret the instances of a fleet share so that a ``RedisETagStore`` serves only entries one
/// of them wrote: each entry is signed with HMAC-SHA-256 under it, and an entry whose signature
/// does not verify is a miss, never served.
///
/// Use it when anyone other than the fleet can write to the store's Redis keyspace (another
/// service with the same ACL user, a compromised host on the network): without it, such a
/// writer can plant an entry with a long `max-age` that every instance serves with no request
/// at all. Generate 32 random bytes once (`openssl rand -base64 32`), keep them where the
/// fleet's other secrets are, and give them to every instance:
///
/// ```swift
/// let key = try RedisEntryAuthenticationKey(base64Encoded: environment["ETAG_ENTRY_KEY"] ?? "")
/// let store = try RedisETagStore(url: redisURL, namespace: "orders-service:etag",
///                                entryAuthenticationKeys: [key])
/// ```
///
/// **Rotation.** A store takes a list of keys: it signs with the first and verifies an entry
/// with the key whose ``id`` the entry carries. Deploy `[old, new]` to every instance, then
/// `[new, old]`, then `[new]` once entries signed with the old key have expired or been
/// rewritten; an instance that meets a key it does not hold treats the entry as a miss.
///
/// The key never appears in a description, a mirror (`dump`), an error or an event: they show
/// its ``id``, a fingerprint that reveals nothing about it.
public struct RedisEntryAuthenticationKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The fewest bytes a key may have: HMAC-SHA-256's own strength (RFC 2104 §3 advises no
    /// fewer than the hash's output length).
    public static let minimumByteCount = 32

    /// The secret bytes; they never leave the store's signing and verification.
    let bytes: [UInt8]
    /// The first 8 bytes of the key's fingerprint: stored in each signed entry, so a reader
    /// picks the one key that can verify it instead of trying each.
    let identifier: [UInt8]

    /// A fingerprint of the key in 16 lower-case hex digits (8 bytes of HMAC-SHA-256 under the
    /// key of a fixed label): the same on every instance given the same key, so logs show
    /// which key signed an entry, and useless for finding the key.
    public let id: String

    /// What the fingerprint is computed over; a fixed label, so it is not any entry's signature.
    private static let identifierLabel = Array("strata-redis-etag-entry-key-id".utf8)
    /// The bytes of a fingerprint kept in each entry: enough that two keys of one fleet never
    /// share one by chance.
    static let identifierByteCount = 8

    /// Creates a key from its secret bytes.
    ///
    /// - Parameter bytes: At least ``minimumByteCount`` (32) random bytes.
    /// - Throws: ``RedisETagStoreError/invalidParameter(_:reason:)`` (`entryAuthenticationKeys`)
    ///   when there are fewer, or OpenSSL cannot compute HMAC-SHA-256. The reason never holds
    ///   the key.
    public init(_ bytes: some Sequence<UInt8>) throws(RedisETagStoreError) {
        let bytes = Array(bytes)
        guard bytes.count >= Self.minimumByteCount else {
            throw .invalidParameter(
                "entryAuthenticationKeys",
                reason: "it has \(bytes.count) bytes and needs at least \(Self.minimumByteCount) random bytes "
                    + "(for example from `openssl rand -base64 32`)")
        }
        let fingerprint: [UInt8]
        do {
            fingerprint = try OpenSSLHMACSHA256.authenticationCode(for: [Self.identifierLabel], key: bytes)
        } catch {
            throw .invalidParameter("entryAuthenticationKeys", reason: error.description)
        }
        self.bytes = bytes
        identifier = Array(fingerprint.prefix(Self.identifierByteCount))
        id = identifier.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    /// Creates a key from its secret bytes in base64, as secret stores and environment
    /// variables hold them.
    ///
    /// - Parameter base64: The key in standard base64 (RFC 4648 §4); surrounding white space is
    ///   ignored.
    /// - Throws: ``RedisETagStoreError/invalidParameter(_:reason:)`` (`entryAuthenticationKeys`)
    ///   when the text is not base64 or decodes to fewer than ``minimumByteCount`` bytes. The
    ///   reason never holds the text.
    public init(base64Encoded base64: String) throws(RedisETagStoreError) {
        guard let bytes = Data(base64Encoded: base64.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw .invalidParameter("entryAuthenticationKeys", reason: "it is not base64 text")
        }
        try self.init(bytes)
    }

    /// `RedisEntryAuthenticationKey(id: …)`: the fingerprint, never the key.
    public var description: String { "RedisEntryAuthenticationKey(id: \(id))" }

    /// The same as ``description``, so `String(reflecting:)` and string interpolation in a
    /// debugger show no secret either.
    public var debugDescription: String { description }

    /// A mirror with the ``id`` alone, so `dump(_:)` and reflection-based loggers show no secret.
    public var customMirror: Mirror { Mirror(self, children: ["id": id], displayStyle: .struct) }
}

extension String {
    /// The string with `"0"`s in front up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
