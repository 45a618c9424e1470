import Foundation

/// The on-disk format of one ``FileETagStore`` entry, as pure functions over bytes (so it can
/// be fuzzed without a file system).
///
/// ```
/// offset  size  field
///      0     8  magic "STRATAET"
///      8     4  format version, big-endian (3)
///     12     4  metadata length M, big-endian
///     16     8  body length B, big-endian
///     24    32  HMAC-SHA256, under the store's key, of bytes 0..<24 and the M + B bytes after 56
///     56     M  metadata: JSON {"keyDigest": ..., "entry": ETagCacheEntry with an empty body}
///   56+M     B  body, raw
/// ```
/// The lengths must add up to the file's size exactly, so a truncated or extended file is
/// rejected before its tag is even computed; the tag catches anything else.
///
/// **What is persisted.** Never the store key: it holds the URL, whose query may carry a token
/// (`?access_token=`, `sig=`). Only its SHA-256 (``keyDigest(of:)``, the digest that names
/// `FileETagStore` files, Redis keys and entries in events) is written, and reading an entry
/// for a key compares digests. The entry's URL is written without its userinfo and with the
/// values of ``Redaction``'s default secret query parameters replaced (``persistedURL(_:)``).
/// This is the one place every persisting store goes through, so no store can forget it.
///
/// Version 2 replaced version 1's plain SHA-256 checksum with an HMAC under a secret key
/// (`authenticationKey`), so the integrity check is also an origin check: anyone can compute a
/// checksum, only a holder of the key can make a file that decodes. ``FileETagStore`` keeps a
/// random 32-byte key per directory; another store reusing this format passes its own key (an
/// empty key gives an integrity check that authenticates nothing). Version 3 stores the key's
/// digest instead of the key. Files of other versions decode as
/// ``ETagEntryFileError/unsupportedVersion(_:)`` and are treated as misses.
///
/// Since Strata 0.4 the metadata also holds the entry's ``ExchangeTimes`` (when its request was
/// sent and its response received), a record with its own version inside the JSON, so the layout
/// stays version 3: an entry written by 0.3 decodes without them (stale: revalidated, never served
/// as fresh), and 0.3 reads 0.4's entries, ignoring the times, so the two can share a Redis or a
/// directory during an upgrade.
/// `package`: `StrataRedis` stores the same bytes as Redis values, so both stores share one
/// integrity check.
package enum ETagEntryFileFormat {
    static let magic = Array("STRATAET".utf8)
    static let version: UInt32 = 3
    static let headerByteCount = 56
    /// A sane bound on the JSON part, so a corrupt length cannot make a reader allocate much.
    static let maxMetadataBytes = 1 << 20

    private struct Metadata: Codable {
        var keyDigest: String
        var entry: ETagCacheEntry
    }

    /// The digest that stands for a store key wherever one is persisted or reported: its
    /// SHA-256 in lower-case hex.
    package static func keyDigest(of key: String) -> String {
        ETagStoreEvent.keyDigest(of: key)
    }

    /// The file contents for `entry` stored under `key`, authenticated with `authenticationKey`.
    /// Holds `key`'s digest, not `key`, and the entry's URL as ``persistedURL(_:)`` makes it.
    ///
    /// - Throws: `EncodingError` when the entry cannot be encoded, or
    ///   ``ETagEntryFileError/tooLarge(bytes:limit:)`` when its metadata exceeds the bound.
    package static func encode(key: String, entry: ETagCacheEntry, authenticationKey: [UInt8]) throws -> Data {
        try encode(keyDigest: keyDigest(of: key), entry: entry, authenticationKey: authenticationKey)
    }

    /// ``encode(key:entry:authenticationKey:)`` for a key known only by its digest (the fuzz
    /// target re-encodes what it decoded).
    static func encode(keyDigest: String, entry: ETagCacheEntry, authenticationKey: [UInt8]) throws -> Data {
        var withoutBody = entry
        withoutBody.body = Data()
        withoutBody.url = entry.url.flatMap(persistedURL)
        let metadata = try JSONEncoder().encode(Metadata(keyDigest: keyDigest, entry: withoutBody))
        guard metadata.count <= maxMetadataBytes else {
            throw ETagEntryFileError.tooLarge(bytes: metadata.count, limit: maxMetadataBytes)
        }
        var header = Data(magic)
        append(version, to: &header)
        append(UInt32(metadata.count), to: &header)
        append(UInt64(entry.body.count), to: &header)
        let tag = HMACSHA256.authenticationCode(
            for: [UInt8](header) + [UInt8](metadata) + [UInt8](entry.body),
            key: authenticationKey)
        var file = header
        file.append(contentsOf: tag)
        file.append(metadata)
        file.append(entry.body)
        return file
    }

    /// The entry in `file`, if it was made with `authenticationKey` for `key`.
    ///
    /// - Throws: ``ETagEntryFileError`` saying why the bytes are not a valid entry under this
    ///   authentication key (``ETagEntryFileError/keyMismatch`` when the entry is another key's).
    package static func decode(_ file: Data, for key: String, authenticationKey: [UInt8]) throws(ETagEntryFileError) -> ETagCacheEntry {
        let decoded = try decode(file, authenticationKey: authenticationKey)
        guard decoded.keyDigest == keyDigest(of: key) else { throw .keyMismatch }
        return decoded.entry
    }

    /// The key digest and entry in `file`, if it was made with `authenticationKey`.
    ///
    /// - Throws: ``ETagEntryFileError`` saying why the bytes are not a valid version-3 entry
    ///   under this key.
    package static func decode(_ file: Data, authenticationKey: [UInt8]) throws(ETagEntryFileError) -> (
        keyDigest: String, entry: ETagCacheEntry
    ) {
        let bytes = [UInt8](file)
        guard bytes.count >= headerByteCount else { throw .truncated(bytes: bytes.count) }
        guard Array(bytes[0..<8]) == magic else { throw .notAnEntryFile }
        let fileVersion = UInt32(read(bytes, at: 8, count: 4))
        guard fileVersion == version else { throw .unsupportedVersion(fileVersion) }
        let metadataLength = read(bytes, at: 12, count: 4)
        let bodyLength = read(bytes, at: 16, count: 8)
        guard metadataLength <= UInt64(maxMetadataBytes) else {
            throw .tooLarge(bytes: Int(clamping: metadataLength), limit: maxMetadataBytes)
        }
        let (payloadLength, overflow) = metadataLength.addingReportingOverflow(bodyLength)
        guard !overflow, UInt64(bytes.count - headerByteCount) == payloadLength else {
            throw .lengthMismatch(
                declared: overflow ? UInt64.max : payloadLength,
                actual: UInt64(bytes.count - headerByteCount))
        }
        let tag = HMACSHA256.authenticationCode(for: bytes[0..<24] + bytes[headerByteCount...], key: authenticationKey)
        guard HMACSHA256.isEqual(tag, Array(bytes[24..<56])) else { throw .checksumMismatch }
        let metadataEnd = headerByteCount + Int(metadataLength)
        let metadata: Metadata
        do {
            metadata = try JSONDecoder().decode(Metadata.self, from: Data(bytes[headerByteCount..<metadataEnd]))
        } catch {
            throw .malformedMetadata(String(describing: error))
        }
        var entry = metadata.entry
        entry.body = Data(bytes[metadataEnd...])
        return (metadata.keyDigest, entry)
    }

    /// `url` as it may be persisted: without userinfo (a credential), and with the values of
    /// ``Redaction/defaultQueryParameters`` in its query and fragment replaced by
    /// `%3Credacted%3E` (the percent-encoded placeholder, so the text stays a URL). `nil` when
    /// the result is not a URL. Idempotent, so an entry read back and stored again is unchanged.
    static func persistedURL(_ url: URL) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
        components.user = nil
        components.password = nil
        guard let withoutUserinfo = components.url else { return nil }
        let encodedPlaceholder =
            Redaction.placeholder
            .addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "redacted"
        return URL(
            string: Redaction().redact(withoutUserinfo)
                .replacingOccurrences(of: Redaction.placeholder, with: encodedPlaceholder))
    }

    private static func append<Integer: FixedWidthInteger>(_ value: Integer, to data: inout Data) {
        withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
    }

    private static func read(_ bytes: [UInt8], at offset: Int, count: Int) -> UInt64 {
        bytes[offset..<(offset + count)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// Why a file in a ``FileETagStore`` directory is not a usable entry.
package enum ETagEntryFileError: Error, Hashable, CustomStringConvertible {
    case truncated(bytes: Int)
    case notAnEntryFile
    case unsupportedVersion(UInt32)
    case lengthMismatch(declared: UInt64, actual: UInt64)
    case checksumMismatch
    case malformedMetadata(String)
    case tooLarge(bytes: Int, limit: Int)
    case keyMismatch

    package var description: String {
        switch self {
        case .truncated(let bytes): "truncated: \(bytes) bytes is shorter than the 56-byte header"
        case .notAnEntryFile: "not an entry file (wrong magic bytes)"
        case .unsupportedVersion(let version): "format version \(version); this build reads version \(ETagEntryFileFormat.version)"
        case .lengthMismatch(let declared, let actual):
            "truncated or extended: the header declares \(declared) bytes after it, the file has \(actual)"
        case .checksumMismatch: "corrupt, or not written with this key: the HMAC-SHA256 checksum does not match"
        case .malformedMetadata(let detail): "corrupt metadata: \(detail)"
        case .tooLarge(let bytes, let limit): "too large: \(bytes) bytes, the limit is \(limit)"
        case .keyMismatch: "the file holds an entry for another key"
        }
    }
}
