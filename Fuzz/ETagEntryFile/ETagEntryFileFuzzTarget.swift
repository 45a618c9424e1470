// Fuzz target `etag-entry` (scripts/fuzz.sh): the FileETagStore entry format's decoder,
// compiled into the Strata module so it reaches the internal ETagEntryFileFormat.
//
// Input: byte 0 picks the mode. Raw (low bit 0): the rest is a whole file. Framed (low bit 1):
// bytes 1-2 are the metadata length (big-endian, at most what follows), the rest is metadata
// then body, given a valid header (lengths, and the HMAC under the target's key)
// so mutations reach the JSON and body decoding behind the authentication tag.
// Properties checked on every input:
// 1. Decoding never crashes and refuses anything malformed with an ETagEntryFileError.
// 2. Round trip: an entry that decodes, encoded again, decodes to the same key digest and
//    entry, except that its URL is what the format persists of it (no userinfo, no secrets).
import Foundation

/// The store key every file is authenticated with here (any 32 bytes do).
private let authenticationKey = [UInt8](repeating: 0x5A, count: 32)

/// `payload` (metadata, then body) behind a header whose lengths and tag are right.
private func framed(_ payload: [UInt8], metadataLength: Int) -> Data {
    var file = Data(ETagEntryFileFormat.magic)
    func append<Integer: FixedWidthInteger>(_ value: Integer) {
        withUnsafeBytes(of: value.bigEndian) { file.append(contentsOf: $0) }
    }
    append(ETagEntryFileFormat.version)
    append(UInt32(metadataLength))
    append(UInt64(payload.count - metadataLength))
    file.append(contentsOf: HMACSHA256.authenticationCode(for: [UInt8](file) + payload, key: authenticationKey))
    file.append(contentsOf: payload)
    return file
}

func fuzz(_ input: inout FuzzInput) {
    let mode = input.byte()
    let file: Data
    if mode & 1 == 1 {
        let length = Int(input.byte()) << 8 | Int(input.byte())
        let payload = input.rest()
        file = framed(payload, metadataLength: min(length, payload.count))
    } else {
        file = Data(input.rest())
    }
    guard let decoded = try? ETagEntryFileFormat.decode(file, authenticationKey: authenticationKey) else { return }
    let encoded: Data
    do {
        encoded = try ETagEntryFileFormat.encode(
            keyDigest: decoded.keyDigest, entry: decoded.entry,
            authenticationKey: authenticationKey)
    } catch {
        return fuzzCheck(false, "a decoded entry cannot be encoded again: \(error)")
    }
    let again = try? ETagEntryFileFormat.decode(encoded, authenticationKey: authenticationKey)
    var expected = decoded.entry
    expected.url = expected.url.flatMap(ETagEntryFileFormat.persistedURL)
    fuzzCheck(
        again?.keyDigest == decoded.keyDigest && again?.entry == expected,
        "decoded \(decoded), encoded again and decoded: \(String(describing: again))")
}
