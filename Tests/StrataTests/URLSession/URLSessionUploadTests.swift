#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import Testing
import TestSupport
import TestServer

@Suite("URLSessionTransport uploads a file from the file, and a single-pass body read into memory first (bounded)", .serialized)
struct URLSessionUploadTests {
    let transport = URLSessionTransport(requestTimeout: .seconds(120))

    /// A server answering every upload with the ``BodyChecksum`` of the body it read, and its
    /// framing.
    func countingServer() throws -> ScriptedHTTPServer {
        try ScriptedHTTPServer { connection in
            var checksum = BodyChecksum()
            let framing = connection.header("Content-Length").map { "length \($0)" } ?? "chunked"
            connection.readBody { checksum.add($0) }
            let text = "\(checksum) \(framing)"
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(text.utf8.count)\r\n\r\n\(text)")
        }
    }

    @Test("a single-pass body of unknown length arrives intact, read into memory and sent with its length")
    func singlePassUpload() async throws {
        let blocks = (0..<16).map { BodyPattern.bytes(from: $0 * 4099, count: 512 * 1024 + $0) }
        let checksum = BodyChecksum(blocks)
        let server = try countingServer()
        let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
            for block in blocks { continuation.yield(block[...]) }
            continuation.finish()
        }
        let response = try await transport.send(
            HTTPRequest(
                method: .post, url: server.url("/stream"),
                body: HTTPBody(chunks, length: nil)))
        #expect(response.text == "\(checksum) length \(checksum.count)")
    }

    @Test("a single-pass body whose sequence fails is not sent at all: invalidRequest")
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

    @Test("a single-pass body larger than maxSinglePassUploadBytes is refused before anything is sent")
    func tooLargeSinglePassUpload() async throws {
        let server = try countingServer()
        let declared = HTTPBody(
            AsyncStream<ArraySlice<UInt8>> { $0.finish() },
            length: Int64(URLSessionTransport.maxSinglePassUploadBytes) + 1)
        let error = await #expect(throws: TransportError.self) {
            try await transport.send(HTTPRequest(method: .post, url: server.url("/stream"), body: declared))
        }
        #expect(error?.kind == .invalidRequest)
        #expect(error?.message.contains("limit") == true, "\(String(describing: error))")
    }
}

/// The 64 MiB file upload, in a process of its own (``MeasuringProcess``): the resident set is
/// the whole process's, and other suites would be counted as the upload's.
@Suite(
    "URLSessionTransport uploads a large file with bounded memory", .serialized,
    .enabled(if: MeasuringProcess.isMeasuring, "runs in the process URLSessionUploadIsolationTests starts"))
struct URLSessionLargeUploadTests {
    let transport = URLSessionTransport(requestTimeout: .seconds(120))

    @Test("a 64 MiB file arrives intact, sent with its length, and the resident set grows by less than 32 MiB")
    func fileUpload() async throws {
        let block = BodyPattern.bytes(from: 0, count: 1 << 20)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("strata-upload-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        let handle = try FileHandle(forWritingTo: file)
        for _ in 0..<64 { handle.write(Data(block)) }
        try handle.close()
        let checksum = BodyChecksum(Array(repeating: block, count: 64))
        let server = try URLSessionUploadTests().countingServer()
        let before = ResidentMemory.bytes
        ResidentMemory.resetPeak()
        let response = try await transport.send(
            HTTPRequest(
                method: .put, url: server.url("/file"),
                body: try HTTPBody(contentsOf: file)))
        let growth = max(ResidentMemory.peak, ResidentMemory.bytes) - before
        #expect(response.text == "\(checksum) length \(64 << 20)")
        if ResidentMemory.isMeaningful { #expect(growth < 32 << 20, "resident set grew by \(growth >> 20) MiB") }
    }
}

@Suite(
    "URLSession's large-upload memory is measured in a process of its own",
    .disabled(if: MeasuringProcess.isMeasuring, "this is the measuring process"),
    .disabled(if: !ResidentMemory.isMeaningful, "memory bounds mean nothing under a sanitizer"))
struct URLSessionUploadIsolationTests {
    @Test("the large-upload test passes in a process where nothing else runs")
    func isolated() async throws {
        let (status, output) = try await MeasuringProcess.run(filter: "URLSessionLargeUploadTests")
        #expect(status == 0, "\(output)")
        #expect(output.contains("Test run with 1 test in 1 suite passed"), "the child did not run the test: \(output)")
    }
}
