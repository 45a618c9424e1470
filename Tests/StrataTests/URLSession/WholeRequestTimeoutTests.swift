#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import Testing
import TestServer

@Suite("URLSessionTransport's request timeout bounds the whole request, not the gaps between bytes")
struct WholeRequestTimeoutTests {
    static let scale = Double(ProcessInfo.processInfo.environment["STRATA_TEST_TIME_SCALE"] ?? "") ?? 1

    @Test("a server that drips one byte at a time cannot hold a request past the request timeout")
    func slowDripTimesOut() async throws {
        let server = try LoopbackHTTPServer()
        let body = String(repeating: "x", count: 40)
        // 40 body bytes at 0.25 s each: about 10 s in all, every gap far below the timeout.
        server.route("/drip", response: .drip(head: "HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n", body: body,
                                              every: .milliseconds(250) * Self.scale))
        let transport = URLSessionTransport(requestTimeout: .seconds(2) * Self.scale)
        let error = await #expect(throws: TransportError.self) {
            try await transport.send(URLRequest(url: server.url("/drip")))
        }
        #expect(error?.kind == .timedOut)
        #expect(error?.message.contains("whole request") == true)
        #expect(error?.message.contains("URLSessionTransport's requestTimeout") == true)
    }

    @Test("a later RequestDeadline does not extend the request timeout: one deadline, the earlier wins")
    func earlierOfTimeoutAndDeadline() async throws {
        let server = try LoopbackHTTPServer()
        server.route("/drip", response: .drip(head: "HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n",
                                              body: String(repeating: "x", count: 40),
                                              every: .milliseconds(250) * Self.scale))
        let transport = URLSessionTransport(requestTimeout: .seconds(1) * Self.scale)
        let error = await #expect(throws: TransportError.self) {
            try await RequestDeadline.withTimeout(.seconds(600)) {
                try await transport.send(URLRequest(url: server.url("/drip")))
            }
        }
        #expect(error?.kind == .timedOut)
        #expect(error?.message.contains("URLSessionTransport's requestTimeout") == true)
    }

    @Test("a response that completes in time is unaffected by the deadline")
    func quickResponse() async throws {
        let server = try LoopbackHTTPServer()
        server.route("/ok", response: .init(text: "ok"))
        let response = try await URLSessionTransport(requestTimeout: .seconds(30) * Self.scale).send(URLRequest(url: server.url("/ok")))
        #expect(response.statusCode == 200)
    }
}
