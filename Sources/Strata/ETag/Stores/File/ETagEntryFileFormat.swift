import Foundation

/// The on-disk format of one ``FileETagStore`` entry, as pure functions over bytes (so it can
/// be fuzzed without a file system).
///
/// ```
/// offset  size  field
///      0     8  magic "STRATAET"
///      8     4  format version, big-endian (2)
///     12     4  metadata length M, big-endian
///     16     8  body length B, big-endian
///     24    32  HMAC-SHA256, under the store's key, of bytes 0..<24 and the M + B bytes after 56
///     56     M  metadata: JSON {"key": ..., "entry": ETagCacheEntry with an empty body}
///   56+M     B  body, raw
/// ```
/// The lengths must add up to the file's size exactly, so a truncated or extended file is
/// rejected before its tag is even computed; the tag catches anything else.
///
/// Version 2 replaced version 1's plain SHA-256 checksum with an HMAC under a secret key
/// (`authenticationKey`), so the integrity check is also an origin check: anyone can compute a
/// checksum, only a holder of the key can make a file that decodes. ``FileETagStore`` keeps a
/// random 32-byte key per directory; another store reusing this format passes its own key (an
/// empty key gives an integrity check that authenticates nothing). Version 1 files decode as
/// ``ETagEntryFileError/unsupportedVersion(_:)`` and are treated as misses.
/// `package`: `StrataRedis` stores the same bytes as Redis values, so both stores share one
/// integrity check.
package enum ETagEntryFileFormat {
    static let magic = Array("STRATAET".utf8)
    static let version: UInt32 = 2
    static let headerByteCount = 56
    /// A sane bound on the JSON part, so a corrupt length cannot make a reader allocate much.
    static let maxMetadataBytes = 1 << 20

    private struct Metadata: Codable {
        var key: String
        var entry: ETagCacheEntry
    }

    /// The file contents for `entry` stored under `key`, authenticated with `authenticationKey`.
    ///
    /// - Throws: `EncodingError` when the entry cannot be encoded, or
    ///   ``ETagEntryFileError/tooLarge(bytes:limit:)`` when its metadata exceeds the bound.
    package static func encode(key: String, entry: ETagCacheEntry, authenticationKey: [UInt8]) throws -> Data {
        var withoutBody = entry
        withoutBody.body = Data()
        let metadata = try JSONEncoder().encode(Metadata(key: key, entry: withoutBody))
        guard metadata.count <= maxMetadataBytes else {
            throw ETagEntryFileError.tooLarge(bytes: metadata.count, limit: maxMetadataBytes)
        }
        var header = Data(magic)
        append(version, to: &header)
        append(UInt32(metadata.count), to: &header)
        append(UInt64(entry.body.count), to: &header)
        let tag = HMACSHA256.authenticationCode(for: [UInt8](header) + [UInt8](metadata) + [UInt8](entry.body),
                                                key: authenticationKey)
        var file = header
        file.append(contentsOf: tag)
        file.append(metadata)
        file.append(entry.body)
        return file
    }

    /// The key and entry in `file`, if it was made with `authenticationKey`.
    ///
    /// - Throws: ``ETagEntryFileError`` saying why the bytes are not a valid version-2 entry
    ///   under this key.
    package static func decode(_ file: Data, authenticationKey: [UInt8]) throws(ETagEntryFileError) -> (key: String, entry: ETagCacheEntry) {
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
            throw .lengthMismatch(declared: overflow ? UInt64.max : payloadLength,
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
        return (metadata.key, entry)
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
