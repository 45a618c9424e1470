import Foundation
@testable import Strata
import StrataTesting
import Testing

@Suite("HTTPNetworkService: streaming an endpoint and downloading it to a file")
struct ServiceStreamingTests {
    let environment = DefaultAPIEnvironment(baseURL: URL(string: "https://api.example.com")!)

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-download-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func entries(of directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    @Test("a download is written chunk by chunk and appears under its name only when complete")
    func download() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let chunks = (0..<40).map { index in [UInt8](repeating: UInt8(index), count: 1_000) }
        let service = HTTPNetworkService(
            transport: ScriptedStreamTransport([
                .init(statusCode: 200, headers: ["Content-Type": "application/octet-stream"], chunks: chunks)
            ]))
        let target = directory.appendingPathComponent("artifact.bin")
        let head = try await service.download(TestEndpoint(path: "/artifact"), via: environment, to: target)
        #expect(head.headers["Content-Type"] == "application/octet-stream")
        #expect(try Data(contentsOf: target) == Data(chunks.joined()))
        #expect(try Self.entries(of: directory) == ["artifact.bin"])
    }

    @Test("a failed download leaves nothing behind, and an existing file untouched")
    func failedDownload() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("artifact.bin")
        try Data("previous".utf8).write(to: target)
        let failing = AsyncThrowingStream<ArraySlice<UInt8>, any Error> { continuation in
            continuation.yield(Array("partial".utf8)[...])
            continuation.finish(throwing: TransportError(.connectionLost))
        }
        let service = HTTPNetworkService(transport: FailingBodyTransport(body: HTTPBody(failing, length: nil)))
        let error = await #expect(throws: NetworkError.self) {
            try await service.download(TestEndpoint(path: "/artifact"), via: environment, to: target)
        }
        guard case .transport(let underlying as TransportError)? = error else {
            Issue.record("expected a transport error, got \(String(describing: error))")
            return
        }
        #expect(underlying.kind == .connectionLost)
        #expect(try Data(contentsOf: target) == Data("previous".utf8))
        #expect(try Self.entries(of: directory) == ["artifact.bin"])
    }

    @Test("a status the endpoint does not accept is httpStatus, with the start of its body, and writes no file")
    func rejectedStatus() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let service = HTTPNetworkService(transport: ScriptedStreamTransport([.status(404, body: "no such artifact")]))
        let error = await #expect(throws: NetworkError.self) {
            try await service.download(
                TestEndpoint(path: "/artifact"), via: environment,
                to: directory.appendingPathComponent("artifact.bin"))
        }
        guard case .httpStatus(let response)? = error else {
            Issue.record("expected httpStatus, got \(String(describing: error))")
            return
        }
        #expect(response.statusCode == 404)
        #expect(response.text == "no such artifact")
        #expect(try Self.entries(of: directory).isEmpty)
    }

    @Test("a directory that does not exist is cannotWriteFile, naming the path")
    func unwritable() async throws {
        let service = HTTPNetworkService(transport: ScriptedStreamTransport([.status(200, body: "x")]))
        let target = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/artifact.bin")
        let error = await #expect(throws: NetworkError.self) {
            try await service.download(TestEndpoint(path: "/artifact"), via: environment, to: target)
        }
        guard case .cannotWriteFile(let path, _)? = error else {
            Issue.record("expected cannotWriteFile, got \(String(describing: error))")
            return
        }
        #expect(path == target.path)
    }

    @Test("stream hands an accepted response to the consumer and passes the consumer's own error through")
    func streamEndpoint() async throws {
        struct Stop: Error {}
        let service = HTTPNetworkService(transport: ScriptedStreamTransport([.status(200, body: "line 1\nline 2\n")]))
        let lines = try await service.stream(TestEndpoint(path: "/tail"), via: environment) { _, body in
            try await body.collect(upTo: 100).filter { $0 == UInt8(ascii: "\n") }.count
        }
        #expect(lines == 2)
        await #expect(throws: Stop.self) {
            try await service.stream(TestEndpoint(path: "/tail"), via: environment) { _, _ -> Int in throw Stop() }
        }
    }

    @Test("the endpoint's timeout bounds the whole exchange, body included")
    func timeoutCoversBody() async throws {
        let seen = LockedValue<Duration?>(nil)
        let service = HTTPNetworkService(transport: DeadlineReporter(seen: seen))
        try await service.stream(TestEndpoint(path: "/slow", timeout: .seconds(7)), via: environment) { _, _ in
            // The deadline is still in force while the consumer reads.
            #expect(RequestDeadline.remaining.map { $0 <= .seconds(7) && $0 > .seconds(6) } == true)
        }
        #expect(seen.withLock { $0 } != nil)
    }

    /// Answers 200 with a body that fails partway.
    struct FailingBodyTransport: Transport {
        let body: HTTPBody
        func send(_ request: HTTPRequest) async throws -> HTTPResponse { HTTPResponse(statusCode: 200) }
        func stream<Result: Sendable>(
            _ request: HTTPRequest,
            _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
        ) async throws -> Result {
            try await consume(HTTPResponseHead(statusCode: 200), body)
        }
    }

    /// Records the deadline the request was sent under.
    struct DeadlineReporter: Transport {
        let seen: LockedValue<Duration?>
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            seen.withLock { $0 = RequestDeadline.remaining }
            return HTTPResponse(statusCode: 200)
        }
    }
}
