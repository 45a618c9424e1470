#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import Testing
import TestServer

/// `ResponseBodyLimit` around one call replaces `URLSessionTransport`'s configured buffered limit
/// for that call only, and is named when a body passes it.
@Suite("URLSessionTransport honours ResponseBodyLimit")
struct URLSessionResponseBodyLimitTests {
    @Test(
        "a call raises the limit for itself, declared length or not; the next call has the configured one again",
        arguments: [true, false])
    func raisedForOneCall(declaredLength: Bool) async throws {
        let server = try LoopbackHTTPServer()
        let body = Data(repeating: 0x61, count: 4096)
        server.route(
            "/big",
            response: declaredLength
                ? .init(body: body)
                : .raw(Data("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".utf8) + body))
        let transport = URLSessionTransport(requestTimeout: .seconds(30), limits: .init(maxResponseBodyBytes: 1024))
        let raised = try await ResponseBodyLimit.withMaxBytes(8192) { try await transport.send(HTTPRequest(url: server.url("/big"))) }
        #expect(raised.body == body)
        await #expect {
            _ = try await transport.send(HTTPRequest(url: server.url("/big")))
        } throws: { error in
            (error as? TransportError)?.message.contains("URLSessionTransport.Limits.maxResponseBodyBytes") == true
        }
    }

    @Test("a call lowers the limit for itself, and the error names ResponseBodyLimit")
    func loweredForOneCall() async throws {
        let server = try LoopbackHTTPServer()
        server.route("/big", response: .init(body: Data(repeating: 0x61, count: 4096)))
        let transport = URLSessionTransport(requestTimeout: .seconds(30))
        await #expect {
            _ = try await ResponseBodyLimit.withMaxBytes(100) { try await transport.send(HTTPRequest(url: server.url("/big"))) }
        } throws: { error in
            guard let error = error as? TransportError else { return false }
            return error.kind == .invalidResponse && error.message.contains("100-byte limit (ResponseBodyLimit.withMaxBytes)")
        }
    }
}
