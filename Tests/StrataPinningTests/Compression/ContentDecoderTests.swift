import Foundation
@testable import StrataPinning
import Testing
import TestServer
import TestTraits

/// The decoders of StrataPinning/Compression on their own: any chunking of the input gives the
/// same output, output comes in bounded pieces, and every way a body can be wrong is a typed
/// error, never a crash, a hang or a silently short body.
@Suite("Content decoders", .onOwnThread)
struct ContentDecoderTests {
    /// Feeds `input` in chunks of the given sizes (cycled), draining after each; the output and
    /// the largest piece seen. Calls `finish()` at the end.
    static func decode(_ input: [UInt8], coding: ContentCoding, chunkSizes: [Int]? = nil) throws
        -> (output: [UInt8], largestPiece: Int)
    {
        let chunkSizes = chunkSizes ?? [max(1, input.count)]
        let decoder = try coding.makeDecoder()
        var output: [UInt8] = []
        var largest = 0
        var offset = 0
        var sizes = chunkSizes.makeIterator()
        while offset < input.count {
            var size = sizes.next()
            if size == nil {
                sizes = chunkSizes.makeIterator()
                size = sizes.next()
            }
            let end = min(input.count, offset + max(1, size!))
            decoder.feed(input[offset..<end])
            offset = end
            while let piece = try decoder.nextOutput() {
                #expect(!piece.isEmpty)
                largest = max(largest, piece.count)
                output += piece
            }
        }
        try decoder.finish()
        #expect(decoder.consumedBytes == Int64(input.count))
        return (output, largest)
    }

    @Test("every coding decodes the fixture whole, in random chunks and byte by byte, to the same bytes")
    func chunkingDoesNotMatter() throws {
        #expect(ContentCoding.supported.prefix(2) == [.gzip, .deflate])
        var random = SeededGenerator(seed: 23)
        for form in CodingFixtures.allForms {
            let whole = try Self.decode(form.bytes, coding: form.coding)
            #expect(whole.output == CodingFixtures.json, "\(form.name) whole")
            let sizes = (0..<64).map { _ in Int.random(in: 1...3000, using: &random) }
            #expect(
                try Self.decode(form.bytes, coding: form.coding, chunkSizes: sizes).output == CodingFixtures.json,
                "\(form.name) in random chunks")
            #expect(
                try Self.decode(form.bytes, coding: form.coding, chunkSizes: [1]).output == CodingFixtures.json,
                "\(form.name) byte by byte")
        }
    }

    @Test("output comes in pieces of at most 64 KiB however much one input chunk expands")
    func boundedPieces() throws {
        let zeros = [UInt8](repeating: 0, count: 4 << 20)
        let (output, largest) = try Self.decode(ZlibEncoder.encode(zeros, .gzip), coding: .gzip)
        #expect(output.count == zeros.count)
        #expect(largest == maxOutputBytes)
        for form in CodingFixtures.allForms {
            #expect(try Self.decode(form.bytes, coding: form.coding).largestPiece <= maxOutputBytes)
        }
    }

    @Test("a small decoded piece is handed out in storage of its own size, not in a 64 KiB buffer")
    func smallPiecesDoNotHoldTheOutputBuffer() throws {
        for form in CodingFixtures.allForms {
            let decoder = try form.coding.makeDecoder()
            var pieces: [ArraySlice<UInt8>] = []
            // Byte by byte: every piece is a few bytes, the case a hostile server forces.
            for byte in form.bytes {
                decoder.feed([byte])
                while let piece = try decoder.nextOutput() { pieces.append(piece) }
            }
            try decoder.finish()
            #expect(Array(pieces.joined()) == CodingFixtures.json, "\(form.name)")
            for piece in pieces where piece.count < maxOutputBytes / 4 {
                #expect(piece.capacity < maxOutputBytes / 4, "\(form.name): \(piece.count) bytes held in \(piece.capacity)")
            }
        }
    }

    @Test("a body cut anywhere before its end marker fails as truncated at finish")
    func truncated() throws {
        for form in CodingFixtures.allForms {
            for cut in [1, 2, 10, form.bytes.count / 2, form.bytes.count - 1] {
                #expect(throws: ContentDecodingError.truncated(form.coding), "\(form.name) cut at \(cut)") {
                    _ = try Self.decode(Array(form.bytes.prefix(cut)), coding: form.coding)
                }
            }
        }
    }

    @Test("an empty coded body is an empty body")
    func empty() throws {
        for coding in ContentCoding.supported {
            let decoder = try coding.makeDecoder()
            #expect(try decoder.nextOutput() == nil)
            try decoder.finish()
        }
    }

    @Test("bytes that are not the coding fail as corrupt, with the library's reason")
    func corrupt() throws {
        let text = Array("this is plain text, not a coded body at all".utf8)
        for coding in ContentCoding.supported where coding != .deflate {
            #expect(throws: ContentDecodingError.self, "\(coding)") { _ = try Self.decode(text, coding: coding) }
        }
        do {
            _ = try Self.decode(text, coding: .gzip)
            Issue.record("plain text decoded as gzip")
        } catch let error as ContentDecodingError {
            guard case .corrupt(.gzip, let reason) = error else { throw error }
            #expect(reason == "incorrect header check")
        }
        // gzip's CRC-32 catches a flipped bit deep inside the stream.
        var flipped = CodingFixtures.coded(.gzip)
        flipped[flipped.count - 9] ^= 0x01
        #expect(throws: ContentDecodingError.self) { _ = try Self.decode(flipped, coding: .gzip) }
    }

    @Test("mutated bodies in every coding end in a typed error or some output, never a crash or a hang")
    func mutatedBodies() throws {
        var random = SeededGenerator(seed: 6)
        let mutator = ByteMutator(interestingBytes: [0x00, 0xFF, 0x1F, 0x8B, 0x78, 0x9C, 0x28, 0xB5, 0x2F, 0xFD])
        for form in CodingFixtures.allForms {
            let sample = Array(form.bytes.prefix(600))
            for _ in 0..<150 {
                let mutated = mutator.mutate(sample, using: &random)
                do {
                    _ = try Self.decode(mutated, coding: form.coding, chunkSizes: [Int.random(in: 1...64, using: &random)])
                } catch is ContentDecodingError {
                    continue
                }
            }
        }
    }

    @Test("a second gzip member is decoded after the first; bytes after a deflate, br or zstd stream are refused")
    func afterTheEnd() throws {
        let first = Array("first member, ".utf8)
        let second = Array("second member".utf8)
        let members = ZlibEncoder.encode(first, .gzip) + ZlibEncoder.encode(second, .gzip)
        #expect(try Self.decode(members, coding: .gzip, chunkSizes: [7]).output == first + second)
        #expect(throws: ContentDecodingError.self) {
            _ = try Self.decode(ZlibEncoder.encode(first, .gzip) + [0, 0, 0, 0], coding: .gzip)
        }
        #expect(throws: ContentDecodingError.trailingBytes(.deflate)) {
            _ = try Self.decode(ZlibEncoder.encode(first, .zlib) + [0x41], coding: .deflate)
        }
        if ContentCoding.supported.contains(.brotli) {
            #expect(throws: ContentDecodingError.trailingBytes(.brotli)) {
                _ = try Self.decode(CodingFixtures.coded(.brotli) + [0x41], coding: .brotli)
            }
        }
        if ContentCoding.supported.contains(.zstd) {
            // Another zstd frame may follow one; a byte that cannot start one is corrupt.
            #expect(throws: ContentDecodingError.self) {
                _ = try Self.decode(CodingFixtures.coded(.zstd) + [0x41], coding: .zstd)
            }
        }
    }

    @Test("deflate reads the zlib header as RFC 1950 defines it and anything else as raw deflate")
    func zlibHeader() {
        #expect(ZlibDecoder.isZlibHeader(0x78, 0x9C))
        #expect(ZlibDecoder.isZlibHeader(0x78, 0x01))
        #expect(ZlibDecoder.isZlibHeader(0x78, 0xDA))
        #expect(!ZlibDecoder.isZlibHeader(0x78, 0x9D)) // checksum off by one
        #expect(!ZlibDecoder.isZlibHeader(0x79, 0x9C)) // method 9
        #expect(!ZlibDecoder.isZlibHeader(0x88, 0x1C)) // a 64 KiB window
    }
}
