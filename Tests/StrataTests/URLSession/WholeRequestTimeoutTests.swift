#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import Testing
import TestServer
import TestSupport

@Suite("URLSessionTransport's request timeout bounds the whole request, not the gaps between bytes")
struct WholeRequestTimeoutTests {
    @Test("a server that drips one byte at a time cannot hold a request past the request timeout")
    func slowDripTimesOut() async throws {
        let server = try LoopbackHTTPServer()
        let body = String(repeating: "x", count: 40)
        // 40 body bytes at 0.25 s each: about 10 s in all, every gap far below the timeout.
        server.route(
            "/drip",
            response: .drip(
                head: "HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n", body: body,
                every: TestTimeScale.scaled(.milliseconds(250))))
        let transport = URLSessionTransport(requestTimeout: TestTimeScale.scaled(.seconds(2)))
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
        server.route(
            "/drip",
            response: .drip(
                head: "HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n",
                body: String(repeating: "x", count: 40),
                every: TestTimeScale.scaled(.milliseconds(250))))
        let transport = URLSessionTransport(requestTimeout: TestTimeScale.scaled(.seconds(1)))
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
        let response = try await URLSessionTransport(requestTimeout: TestTimeScale.scaled(.seconds(30))).send(
            URLRequest(url: server.url("/ok")))
        #expect(response.statusCode == 200)
    }
}
