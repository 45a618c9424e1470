import Foundation
@testable import Strata
import Testing
import TestServer

@Suite("ETag entry file format")
struct ETagEntryFileFormatTests {
    let entry = ETagCacheEntry(
        response: HTTPResponse(statusCode: 200, headers: HTTPHeaders([("ETag", "\"1\""), ("X", "a"), ("x", "b")]),
                               body: Data((0..<200).map { UInt8($0) }), url: URL(string: "https://example.com/a")),
        varyingRequestHeaders: ["accept-language": "en"])

    @Test("an encoded entry decodes to the same key and entry")
    func roundTrip() throws {
        let file = try ETagEntryFileFormat.encode(key: "key", entry: entry)
        let decoded = try ETagEntryFileFormat.decode(file)
        #expect(decoded.key == "key" && decoded.entry == entry)
        #expect(file.prefix(8) == Data("STRATAET".utf8))
    }

    @Test("every truncation of a valid file is rejected")
    func truncations() throws {
        let file = try ETagEntryFileFormat.encode(key: "key", entry: entry)
        for length in 0..<file.count {
            #expect(throws: ETagEntryFileError.self) { try ETagEntryFileFormat.decode(file.prefix(length)) }
        }
    }

    @Test("flipping any single byte is detected")
    func bitFlips() throws {
        let file = try ETagEntryFileFormat.encode(key: "key", entry: entry)
        for offset in 0..<file.count {
            var damaged = file
            damaged[offset] ^= 0x01
            #expect(throws: ETagEntryFileError.self) { try ETagEntryFileFormat.decode(damaged) }
        }
    }

    @Test("a future format version and a foreign file are refused with reasons a person can read")
    func foreignFiles() throws {
        var file = try ETagEntryFileFormat.encode(key: "key", entry: entry)
        file[11] = 2
        #expect(throws: ETagEntryFileError.unsupportedVersion(2)) { try ETagEntryFileFormat.decode(file) }
        #expect(throws: ETagEntryFileError.notAnEntryFile) {
            try ETagEntryFileFormat.decode(Data(String(repeating: "garbage ", count: 20).utf8))
        }
        #expect(ETagEntryFileError.unsupportedVersion(2).description.contains("version 2"))
    }

    @Test("a header declaring absurd lengths is rejected without allocating them")
    func absurdLengths() throws {
        var file = try ETagEntryFileFormat.encode(key: "key", entry: entry)
        for offset in 16..<24 { file[offset] = 0xFF }
        #expect(throws: ETagEntryFileError.self) { try ETagEntryFileFormat.decode(file) }
        for offset in 12..<16 { file[offset] = 0xFF }
        #expect(throws: ETagEntryFileError.self) { try ETagEntryFileFormat.decode(file) }
    }

    @Test("seeded random mutations of a valid file never crash the decoder and are never accepted")
    func seededMutations() throws {
        var random = SeededGenerator(seed: 0x5EED)
        let file = try ETagEntryFileFormat.encode(key: "key", entry: entry)
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
            #expect(throws: ETagEntryFileError.self) { try ETagEntryFileFormat.decode(damaged) }
        }
    }
}

