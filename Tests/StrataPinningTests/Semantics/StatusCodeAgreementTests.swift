import Foundation
import Strata
@testable import StrataPinning
import Testing
import TestServer
import TLSTestServer

/// Issue 27: HTTP/1.1 and HTTP/2 agree on what a status code is. One table of cases, each
/// played by a pinned loopback server over both protocols through ``PinningTransport``: every
/// case is refused as `invalidResponse` by both, with a message naming the value, or gives the
/// same response on both.
@Suite("HTTP/1.1 and HTTP/2 agree on what a status code is")
struct StatusCodeAgreementTests {
    /// One status scenario, as each protocol carries it.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// The HTTP/2 header blocks, each as its `:status` values; the last is the final response
        /// and carries the body "ok".
        var http2Blocks: [[String]]
        /// The HTTP/1.1 response head up to its header fields (status lines of interim
        /// responses included), without the final CRLF.
        var http1Head: String
        /// The status code both must return, or nil when both must refuse with `invalidResponse`.
        var status: Int?
        /// Text the refusal's message must contain: the offending value, quoted.
        var named: String = ""

        var testDescription: String { name }

        /// The raw HTTP/1.1 response.
        var http1Response: String { http1Head + "\r\nContent-Length: 2\r\n\r\nok" }
    }

    static let cases: [Case] = [
        Case(name: "200 is a response on both", http2Blocks: [["200"]], http1Head: "HTTP/1.1 200 OK", status: 200),
        Case(
            name: "an interim 103 is skipped on both", http2Blocks: [["103"], ["200"]],
            http1Head: "HTTP/1.1 103 Early Hints\r\n\r\nHTTP/1.1 200 OK", status: 200),
        Case(name: "099 is below 100", http2Blocks: [["099"]], http1Head: "HTTP/1.1 099 Low", named: "\"099\""),
        Case(name: "999 is above 599", http2Blocks: [["999"]], http1Head: "HTTP/1.1 999 High", named: "\"999\""),
        Case(name: "600 is above 599", http2Blocks: [["600"]], http1Head: "HTTP/1.1 600 Nope", named: "\"600\""),
        Case(name: "1000 is four digits", http2Blocks: [["1000"]], http1Head: "HTTP/1.1 1000 Big", named: "\"1000\""),
        Case(name: "20 is two digits", http2Blocks: [["20"]], http1Head: "HTTP/1.1 20 Short", named: "\"20\""),
        Case(name: "2OO (letters O) is not digits", http2Blocks: [["2OO"]], http1Head: "HTTP/1.1 2OO OK", named: "\"2OO\""),
        // HTTP/1.1 has one status line; its nearest "second :status" is a second status line
        // inside the head, which is a malformed header field (RFC 9112 §5.1).
        Case(
            name: "a second :status in one head", http2Blocks: [["200", "204"]],
            http1Head: "HTTP/1.1 200 OK\r\nHTTP/1.1 204 No Content", named: "204"),
        // Never asked for over HTTP/1.1 (no Upgrade sent); malformed over HTTP/2 (RFC 9113 §8.6).
        Case(
            name: "101 Switching Protocols", http2Blocks: [["101"]], http1Head: "HTTP/1.1 101 Switching Protocols",
            named: "101"),
    ]

    private static func check(_ result: Result<HTTPResponse, any Error>, _ testCase: Case) {
        switch (result, testCase.status) {
        case let (.success(response), status?):
            #expect(response.statusCode == status)
            #expect(response.text == "ok")
        case let (.success(response), nil):
            Issue.record("expected invalidResponse, got status \(response.statusCode)")
        case let (.failure(error), expected):
            guard expected == nil, let error = error as? TransportError else {
                Issue.record("expected \(expected.map(String.init) ?? "a TransportError"), got \(error)")
                return
            }
            #expect(error.kind == .invalidResponse)
            #expect(error.message.contains(testCase.named), "\(error.message)")
        }
    }

    private static func send(_ url: URL) async -> Result<HTTPResponse, any Error> {
        do {
            return .success(try await Pinning.transport().send(Pinning.get(url)))
        } catch {
            return .failure(error)
        }
    }

    @Test("over HTTP/1.1", arguments: cases)
    func http1(_ testCase: Case) async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/status", response: .raw(testCase.http1Response))
        Self.check(await Self.send(server.url("/status")), testCase)
    }

    @Test("over HTTP/2", arguments: cases)
    func http2(_ testCase: Case) async throws {
        let server = try ScriptedHTTP2Server { connection in
            connection.handshake()
            for stream in connection.awaitRequests(1) {
                for (index, block) in testCase.http2Blocks.enumerated() {
                    let isFinal = index == testCase.http2Blocks.count - 1
                    connection.write(
                        .headers(
                            stream: stream,
                            block.map { (":status", $0) }
                                + (isFinal ? [("content-length", "2")] : [])))
                }
                connection.write(.data(stream: stream, Array("ok".utf8), endStream: true))
            }
            connection.drain()
        }
        Self.check(await Self.send(server.url("/status")), testCase)
    }
}
