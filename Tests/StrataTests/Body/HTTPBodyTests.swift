import Foundation
@testable import Strata
import Testing
import TestServer

@Suite("HTTPBody: bytes, files and single-pass streams")
struct HTTPBodyTests {
    /// Chunks from an array, produced one at a time.
    static func chunks(_ parts: [[UInt8]]) -> AsyncStream<ArraySlice<UInt8>> {
        AsyncStream { continuation in
            for part in parts { continuation.yield(part[...]) }
            continuation.finish()
        }
    }

    static func all(_ body: HTTPBody) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await chunk in body { bytes += chunk }
        return bytes
    }

    @Test("bytes in memory: length known, replayable, the same bytes on every iteration")
    func bytes() async throws {
        let body = HTTPBody("hello")
        #expect(body.length == 5)
        #expect(body.isReplayable)
        #expect(try await Self.all(body) == Array("hello".utf8))
        #expect(try await Self.all(body) == Array("hello".utf8))
        #expect(try await body.collect(upTo: 5) == Data("hello".utf8))
    }

    @Test("an empty body produces no chunk")
    func empty() async throws {
        var iterator = HTTPBody(Data()).makeAsyncIterator()
        #expect(try await iterator.next() == nil)
        #expect(try await iterator.next() == nil)
    }

    @Test("collect refuses a body past its limit, by declared length before reading anything")
    func collectLimit() async throws {
        await #expect(throws: HTTPBodyError.tooLarge(limit: 4)) { try await HTTPBody("hello").collect(upTo: 4) }
        // Unknown length: refused when the bytes read pass the limit.
        let stream = HTTPBody(Self.chunks([[1, 2, 3], [4, 5, 6]]), length: nil)
        await #expect(throws: HTTPBodyError.tooLarge(limit: 5)) { try await stream.collect(upTo: 5) }
    }

    @Test("a single-pass stream is read once; a second iteration is a typed error, not silence")
    func singlePass() async throws {
        let body = HTTPBody(Self.chunks([[1, 2], [3]]), length: 3)
        #expect(!body.isReplayable)
        #expect(try await Self.all(body) == [1, 2, 3])
        await #expect(throws: HTTPBodyError.alreadyIterated) { try await Self.all(body) }
        // Copies of the value share the one pass.
        let copy = body
        await #expect(throws: HTTPBodyError.alreadyIterated) { try await copy.collect(upTo: 10) }
    }

    @Test("a stream that produces more or fewer bytes than it declared fails with both numbers")
    func lengthMismatch() async throws {
        let long = HTTPBody(Self.chunks([[1, 2], [3, 4]]), length: 3)
        await #expect(throws: HTTPBodyError.lengthMismatch(expected: 3, actual: 4)) { try await Self.all(long) }
        let short = HTTPBody(Self.chunks([[1, 2]]), length: 3)
        await #expect(throws: HTTPBodyError.lengthMismatch(expected: 3, actual: 2)) { try await Self.all(short) }
    }

    @Test("a file is read in chunks, again on every iteration, with its size as the length")
    func file() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-body-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        let contents = BodyPattern.bytes(from: 0, count: 3 * FileChunkReader.chunkSize + 17)
        try Data(contents).write(to: url)

        let body = try HTTPBody(contentsOf: url)
        #expect(body.length == Int64(contents.count))
        #expect(body.isReplayable)
        var chunkSizes: [Int] = []
        var read: [UInt8] = []
        for try await chunk in body {
            chunkSizes.append(chunk.count)
            read += chunk
        }
        #expect(read == contents)
        #expect(chunkSizes.allSatisfy { $0 <= FileChunkReader.chunkSize })
        #expect(chunkSizes.count >= 4)
        #expect(try await Self.all(body) == contents)
    }

    @Test("a file that grows after the body was made fails rather than send more than declared")
    func fileChanged() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-body-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data("abc".utf8).write(to: url)
        let body = try HTTPBody(contentsOf: url)
        try Data("abcdef".utf8).write(to: url)
        await #expect(throws: HTTPBodyError.lengthMismatch(expected: 3, actual: 6)) { try await Self.all(body) }
    }

    @Test("a missing file, a directory and a non-file URL are refused when the body is made")
    func unreadable() throws {
        let missing = URL(fileURLWithPath: "/nonexistent/strata-\(UUID().uuidString)")
        #expect(throws: HTTPBodyError.self) { try HTTPBody(contentsOf: missing) }
        #expect(throws: HTTPBodyError.unreadableFile(path: "/tmp", reason: "not a regular file")) {
            try HTTPBody(contentsOf: URL(fileURLWithPath: "/tmp"))
        }
        #expect(throws: HTTPBodyError.self) { try HTTPBody(contentsOf: URL(string: "https://example.com/file")!) }
    }

    @Test("errors say what to do")
    func descriptions() {
        #expect(HTTPBodyError.alreadyIterated.description.contains("replayable"))
        #expect(HTTPBodyError.tooLarge(limit: 10).description.contains("10-byte limit"))
    }
}
