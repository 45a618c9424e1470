#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import Testing
import TestSupport
import TestServer

@Suite("URLSessionTransport uploads a file from the file and a single-pass body as it is produced", .serialized)
struct URLSessionUploadTests {
    let transport = URLSessionTransport(requestTimeout: .seconds(120))

    /// A server answering every upload with "<bytes> <sum>" of the body it read, and its framing.
    func countingServer() throws -> ScriptedHTTPServer {
        try ScriptedHTTPServer { connection in
            var count = 0
            var sum: UInt64 = 0
            let framing = connection.header("Content-Length").map { "length \($0)" } ?? "chunked"
            connection.readBody { piece in
                for byte in piece {
                    sum = sum &* 31 &+ UInt64(byte)
                    count += 1
                }
            }
            let text = "\(count) \(sum) \(framing)"
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(text.utf8.count)\r\n\r\n\(text)")
        }
    }

    static func checksum(_ blocks: [[UInt8]]) -> (Int, UInt64) {
        var sum: UInt64 = 0
        var count = 0
        for block in blocks { for byte in block { sum = sum &* 31 &+ UInt64(byte); count += 1 } }
        return (count, sum)
    }

    @Test("a 64 MiB file arrives intact, sent with its length, and the resident set grows by less than 32 MiB")
    func fileUpload() async throws {
        let block = BodyPattern.bytes(from: 0, count: 1 << 20)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("strata-upload-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: file.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        let handle = try FileHandle(forWritingTo: file)
        for _ in 0..<64 { handle.write(Data(block)) }
        try handle.close()
        let (count, sum) = Self.checksum(Array(repeating: block, count: 64))
        let server = try countingServer()
        let before = ResidentMemory.bytes
        let response = try await transport.send(HTTPRequest(method: .put, url: server.url("/file"),
                                                             body: try HTTPBody(contentsOf: file)))
        let growth = ResidentMemory.bytes - before
        #expect(response.text == "\(count) \(sum) length \(64 << 20)")
        if ResidentMemory.isMeaningful { #expect(growth < 32 << 20, "resident set grew by \(growth >> 20) MiB") }
    }

    @Test("a single-pass body of unknown length arrives intact, chunked, produced as it is sent")
    func singlePassUpload() async throws {
        let blocks = (0..<16).map { BodyPattern.bytes(from: $0 * 4099, count: 512 * 1024 + $0) }
        let (count, sum) = Self.checksum(blocks)
        let server = try countingServer()
        let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
            for block in blocks { continuation.yield(block[...]) }
            continuation.finish()
        }
        let response = try await transport.send(HTTPRequest(method: .post, url: server.url("/stream"),
                                                             body: HTTPBody(chunks, length: nil)))
        #expect(response.text == "\(count) \(sum) chunked")
    }

    @Test("a single-pass body whose sequence fails is not sent as a whole one: invalidRequest")
    func failingSinglePassUpload() async throws {
        struct Broken: Error {}
        let server = try countingServer()
        let chunks = AsyncThrowingStream<ArraySlice<UInt8>, any Error> { continuation in
            continuation.yield([1, 2, 3][...])
            continuation.finish(throwing: Broken())
        }
        let error = await #expect(throws: TransportError.self) {
            try await transport.send(HTTPRequest(method: .post, url: server.url("/stream"), body: HTTPBody(chunks, length: nil)))
        }
        #expect(error?.kind == .invalidRequest)
        #expect(error?.message.contains("cannot send the request body") == true)
    }
}
