import Foundation
@testable import Strata
import Testing

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
}
