import Foundation
import Strata
@testable import StrataPinning
import StrataTesting
import Testing
import TestServer
import TLSTestServer

/// Request bodies that are not in memory travel to a pinned HTTP/1.1 host as they are read:
/// `Content-Length` when their length is known, chunked when it is not, and a single-pass body
/// is never sent twice.
@Suite("PinningTransport streams file and stream request bodies over HTTP/1.1")
struct PinningRequestBodyTests {
    /// A single-pass body of `chunks`, whose length is not declared.
    static func stream(_ chunks: [[UInt8]]) -> HTTPBody {
        let (sequence, continuation) = AsyncStream<ArraySlice<UInt8>>.makeStream()
        for chunk in chunks { continuation.yield(chunk[...]) }
        continuation.finish()
        return HTTPBody(sequence, length: nil)
    }

    @Test("a body of unknown length is sent chunked and reaches the server intact")
    func chunkedBody() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/echo", method: "POST") { request in .init(body: request.body) }
        let transport = try Streaming.transport(threads: ConnectionThreadLimit(maximum: 8))
        let chunks = (0..<20).map { index in [UInt8]((0..<(index * 997 + 1)).map { UInt8(truncatingIfNeeded: $0 &+ index) }) }
        let request = HTTPRequest(method: .post, url: server.url("/echo"), body: Self.stream(chunks))
        let response = try await transport.send(request)
        #expect(response.body == Data(chunks.joined()))
        let received = try #require(server.http.requests.first)
        #expect(received.header("Transfer-Encoding") == "chunked")
        #expect(received.header("Content-Length") == nil)
    }

    @Test("a file body is sent with its Content-Length, read in chunks")
    func fileBody() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/echo", method: "PUT") { request in .init(body: request.body) }
        let transport = try Streaming.transport(threads: ConnectionThreadLimit(maximum: 8))
        let payload = Data(BodyPattern.bytes(from: 0, count: (3 << 20) + 17))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("strata-body-\(UUID().uuidString)")
        try payload.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let response = try await transport.send(
            HTTPRequest(
                method: .put, url: server.url("/echo"),
                body: try HTTPBody(contentsOf: file)))
        #expect(response.body == payload)
        #expect(server.http.requests.first?.header("Content-Length") == String(payload.count))
    }

    @Test("an idempotent request with a single-pass body is not resent when its reused connection dies")
    func singlePassNotResent() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/warm", response: .init(text: "warm"))
        // The server reads the request, then closes without a byte of response: what a server
        // that closed an idle connection looks like.
        server.http.route("/put", method: "PUT", response: .raw(Data()))
        let transport = try Streaming.transport(threads: ConnectionThreadLimit(maximum: 8))
        _ = try await transport.send(Pinning.get(server.url("/warm")))
        let request = HTTPRequest(method: .put, url: server.url("/put"), body: Self.stream([Array("once".utf8)]))
        let error = await Pinning.error { try await transport.send(request) }
        #expect((error as? TransportError)?.kind == .connectionLost)
        #expect(server.http.requests.filter { $0.path == "/put" }.count == 1)
    }

    @Test("an idempotent request with a file body is resent, read again from the start, when its reused connection dies")
    func fileBodyResent() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/warm", response: .init(text: "warm"))
        let attempts = LockedValue(0)
        server.http.route("/put", method: "PUT") { request in
            let attempt = attempts.withLock { attempts -> Int in
                attempts += 1
                return attempts
            }
            return attempt == 1 ? .raw(Data()) : .init(body: request.body)
        }
        let transport = try Streaming.transport(threads: ConnectionThreadLimit(maximum: 8))
        _ = try await transport.send(Pinning.get(server.url("/warm")))
        let payload = Data(BodyPattern.bytes(from: 0, count: 1 << 20))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("strata-body-\(UUID().uuidString)")
        try payload.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let response = try await transport.send(
            HTTPRequest(
                method: .put, url: server.url("/put"),
                body: try HTTPBody(contentsOf: file)))
        #expect(response.body == payload)
        #expect(attempts.withLock { $0 } == 2)
    }
}
