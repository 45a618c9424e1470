import Foundation
@testable import Strata
import Testing
import TestServer
import TestTraits

@Suite("ETag entry file format", .onOwnThread)
struct ETagEntryFileFormatTests {
    let entry = ETagCacheEntry(
        response: HTTPResponse(
            statusCode: 200, headers: HTTPHeaders([("ETag", "\"1\""), ("X", "a"), ("x", "b")]),
            body: Data((0..<200).map { UInt8($0) }), url: URL(string: "https://example.com/a")),
        varyingRequestHeaders: ["accept-language": "en"])

    static let key = [UInt8](repeating: 7, count: 32)

    @Test("an entry made under another key is refused: the tag is an HMAC, not a checksum anyone can compute")
    func otherKeyRefused() throws {
        let file = try ETagEntryFileFormat.encode(key: "key", entry: entry, authenticationKey: [UInt8](repeating: 8, count: 32))
        #expect(throws: ETagEntryFileError.checksumMismatch) { try ETagEntryFileFormat.decode(file, authenticationKey: Self.key) }
    }

    @Test("HMAC-SHA256 matches RFC 4231 test case 2")
    func hmacKnownAnswer() {
        let code = HMACSHA256.authenticationCode(for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
        #expect(
            code.map { String(format: "%02x", $0) }.joined()
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test("an encoded entry decodes to the same entry for its key, and is another key's miss")
    func roundTrip() throws {
        let file = try ETagEntryFileFormat.encode(key: "key", entry: entry, authenticationKey: Self.key)
        let decoded = try ETagEntryFileFormat.decode(file, authenticationKey: Self.key)
        #expect(decoded.keyDigest == ETagEntryFileFormat.keyDigest(of: "key") && decoded.entry == entry)
        #expect(try ETagEntryFileFormat.decode(file, for: "key", authenticationKey: Self.key) == entry)
        #expect(throws: ETagEntryFileError.keyMismatch) {
            try ETagEntryFileFormat.decode(file, for: "kez", authenticationKey: Self.key)
        }
        #expect(file.prefix(8) == Data("STRATAET".utf8))
    }

    @Test("the bytes hold no store key and no URL secret: the key's digest, the URL without userinfo or token values")
    func nothingSecretPersisted() throws {
        let key = "etag-v1 https://api.example.com/r?access_token=AT-s3cr3t&sig=SG-s3cr3t&page=2 id=-"
        var secretEntry = entry
        secretEntry.url = URL(string: "https://ghp_US3R@api.example.com/r?access_token=AT-s3cr3t&sig=SG-s3cr3t&page=2")
        let file = try ETagEntryFileFormat.encode(key: key, entry: secretEntry, authenticationKey: Self.key)
        for secret in ["AT-s3cr3t", "SG-s3cr3t", "ghp_US3R", "etag-v1"] {
            #expect(file.range(of: Data(secret.utf8)) == nil, "the entry bytes hold \(secret)")
        }
        let decoded = try ETagEntryFileFormat.decode(file, for: key, authenticationKey: Self.key)
        #expect(
            decoded.url?.absoluteString
                == "https://api.example.com/r?access_token=%3Credacted%3E&sig=%3Credacted%3E&page=2")
        // Stored again (a 304 freshening it), the redacted URL stays as it is.
        let again = try ETagEntryFileFormat.encode(key: key, entry: decoded, authenticationKey: Self.key)
        #expect(try ETagEntryFileFormat.decode(again, for: key, authenticationKey: Self.key) == decoded)
    }

    @Test("every truncation of a valid file is rejected")
    func truncations() throws {
        let file = try ETagEntryFileFormat.encode(key: "key", entry: entry, authenticationKey: Self.key)
        for length in 0..<file.count {
            #expect(throws: ETagEntryFileError.self) { try ETagEntryFileFormat.decode(file.prefix(length), authenticationKey: Self.key) }
        }
    }

    @Test("flipping any single byte is detected")
    func bitFlips() throws {
        let file = try ETagEntryFileFormat.encode(key: "key", entry: entry, authenticationKey: Self.key)
        for offset in 0..<file.count {
            var damaged = file
            damaged[offset] ^= 0x01
            #expect(throws: ETagEntryFileError.self) { try ETagEntryFileFormat.decode(damaged, authenticationKey: Self.key) }
        }
    }

    @Test("an older (version 2, which held the key) or future format version and a foreign file are refused with reasons a person can read")
    func foreignFiles() throws {
        var file = try ETagEntryFileFormat.encode(key: "key", entry: entry, authenticationKey: Self.key)
        file[11] = 2
        #expect(throws: ETagEntryFileError.unsupportedVersion(2)) { try ETagEntryFileFormat.decode(file, authenticationKey: Self.key) }
        file[11] = 4
        #expect(throws: ETagEntryFileError.unsupportedVersion(4)) { try ETagEntryFileFormat.decode(file, authenticationKey: Self.key) }
        #expect(throws: ETagEntryFileError.notAnEntryFile) {
            try ETagEntryFileFormat.decode(Data(String(repeating: "garbage ", count: 20).utf8), authenticationKey: Self.key)
        }
        #expect(ETagEntryFileError.unsupportedVersion(4).description.contains("version 4"))
    }

    @Test("a header declaring absurd lengths is rejected without allocating them")
    func absurdLengths() throws {
        var file = try ETagEntryFileFormat.encode(key: "key", entry: entry, authenticationKey: Self.key)
        for offset in 16..<24 { file[offset] = 0xFF }
        #expect(throws: ETagEntryFileError.self) { try ETagEntryFileFormat.decode(file, authenticationKey: Self.key) }
        for offset in 12..<16 { file[offset] = 0xFF }
        #expect(throws: ETagEntryFileError.self) { try ETagEntryFileFormat.decode(file, authenticationKey: Self.key) }
    }

    @Test("seeded random mutations of a valid file never crash the decoder and are never accepted")
    func seededMutations() throws {
        var random = SeededGenerator(seed: 0x5EED)
        let file = try ETagEntryFileFormat.encode(key: "key", entry: entry, authenticationKey: Self.key)
        for _ in 0..<300 {
            var damaged = file
            for _ in 0..<(1 + Int(random.next() % 4)) {
                let offset = Int(random.next() % UInt64(damaged.count))
                switch random.next() % 3 {
                case 0: damaged[offset] ^= UInt8(truncatingIfNeeded: random.next() | 1)
                case 1: damaged.removeSubrange(offset..<damaged.count)
                default: damaged.insert(UInt8(truncatingIfNeeded: random.next()), at: offset)
                }
                if damaged.isEmpty { damaged = Data([0]) }
            }
            guard damaged != file else { continue }
            #expect(throws: ETagEntryFileError.self) { try ETagEntryFileFormat.decode(damaged, authenticationKey: Self.key) }
        }
    }
}
