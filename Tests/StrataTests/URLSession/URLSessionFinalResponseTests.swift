#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import Testing
import TestServer

@Suite("URLSessionTransport returns what FoundationNetworking on Linux would swallow")
struct URLSessionFinalResponseTests {
    let server: LoopbackHTTPServer
    let transport = URLSessionTransport(requestTimeout: .seconds(30))

    init() throws { server = try LoopbackHTTPServer() }

    // MARK: 3xx without Location (RFC 9110 §15.4)

    @Test(
        "RFC 9110 §15.4: a 3xx without Location is a final response, returned with its headers",
        arguments: [300, 301, 302, 303, 305, 307, 308])
    func redirectWithoutLocation(status: Int) async throws {
        server.route(
            "/choices", response: .init(status: status, headers: [("X-Reason", "no target")], text: "pick one"))
        let response = try await transport.send(HTTPRequest(url: server.url("/choices")))
        #expect(response.statusCode == status)
        #expect(response.headers["X-Reason"] == "no target")
        // FoundationNetworking discards the body of a 301–308 it meant to follow; a 300 keeps it.
        #expect(response.body.isEmpty || response.text == "pick one")
        #expect(response.body.isEmpty == (response.headers["Content-Length"] == nil))
        #expect(server.requestCount == 1)
    }

    @Test("a 302 whose Location is empty or not a URL is returned as a response, not followed", arguments: ["", "http://[::1"])
    func redirectWithUnusableLocation(location: String) async throws {
        server.route("/odd", response: .init(status: 302, headers: [("Location", location)], text: "odd"))
        let response = try await transport.send(HTTPRequest(url: server.url("/odd")))
        #expect(response.statusCode == 302)
        #expect(server.requestCount == 1)
    }

    @Test("RFC 9110 §15.4: a streamed 3xx without Location reaches consume as the final response")
    func streamedRedirectWithoutLocation() async throws {
        server.route("/moved", response: .init(status: 301, text: "gone somewhere"))
        let (status, read) = try await transport.stream(HTTPRequest(url: server.url("/moved"))) { head, body in
            (head.statusCode, try await body.collect(upTo: 1024).count)
        }
        #expect(status == 301)
        #expect(read == 0)
    }

    // MARK: Content codings libcurl does not know

    @Test("a body in a coding libcurl does not know fails with a TransportError naming the coding and PinningTransport")
    func unknownCodingFails() async throws {
        server.route("/custom", response: .init(headers: [("Content-Encoding", "x-custom")], text: "opaque"))
        let error = try await #require(throws: TransportError.self) {
            try await transport.send(HTTPRequest(url: server.url("/custom")))
        }
        #expect(error.kind == .invalidResponse)
        #expect(!error.isTransient)
        #expect(error.description.contains("\"x-custom\""))
        #expect(error.description.contains("PinningTransport"))
    }

    @Test("a streamed head in a coding libcurl does not know keeps its Content-Encoding and Content-Length")
    func unknownCodingHeadKeepsHeaders() async throws {
        server.route("/custom", response: .init(headers: [("Content-Encoding", "x-custom")], text: "opaque"))
        let headers = try await transport.stream(HTTPRequest(url: server.url("/custom"))) { head, _ in head.headers }
        #expect(headers["Content-Encoding"] == "x-custom")
        #expect(headers["Content-Length"] == "6")
    }

    @Test("a bodiless response in a coding libcurl does not know is returned undecoded with its header")
    func unknownCodingWithoutBody() async throws {
        server.route("/custom", response: .init(headers: [("Content-Encoding", "x-custom")]))
        let response = try await transport.send(HTTPRequest(method: .head, url: server.url("/custom")))
        #expect(response.statusCode == 200)
        #expect(response.headers["Content-Encoding"] == "x-custom")
    }

    @Test("a coding libcurl decodes still arrives decoded, without the stale Content-Encoding")
    func knownCodingDecoded() async throws {
        let gzipped = Data(base64Encoded: "H4sIAAAAAAAAA8tIzcnJBwCGphA2BQAAAA==")! // "hello"
        server.route("/gzip", response: .init(headers: [("Content-Encoding", "gzip")], body: gzipped))
        let response = try await transport.send(HTTPRequest(url: server.url("/gzip")))
        #expect(response.text == "hello")
        #expect(response.headers["Content-Encoding"] == nil)
    }
}
