import Foundation
@testable import StrataSandbox
import Testing

/// The sandbox's HTTP/1.1 server, over plain TCP so raw requests can be written by hand.
@Suite("SandboxServer")
struct SandboxServerTests {
    private static func server(limits: ServerLimits = ServerLimits()) throws -> SandboxServer {
        let server = try SandboxServer(identity: nil, limits: limits)
        server.route("GET", "/hello") { _ in .json(#"{"hello":"world"}"#) }
        server.route("POST", "/echo") { request in SandboxResponse(body: request.body) }
        server.route("GET", "/items/*") { request in .json(#"{"path":"\#(request.path)"}"#) }
        return server
    }

    @Test("answers the first matching route, keeps the connection alive, and closes after 'Connection: close'")
    func routesAndKeepAlive() async throws {
        let server = try Self.server()
        let response = await RawClient.exchange(
            port: server.port,
            """
            GET /hello HTTP/1.1\r\nHost: x\r\n\r\nGET /items/42?full=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n
            """)
        #expect(response.components(separatedBy: "HTTP/1.1 200 OK\r\n").count == 3)
        #expect(response.contains("Content-Length: 17\r\n\r\n{\"hello\":\"world\"}"))
        #expect(response.hasSuffix("Connection: close\r\n\r\n{\"path\":\"/items/42\"}"))
        #expect(server.connectionCount == 1)
    }

    @Test("an unknown path is 404, a known path with another method 405 with Allow, HEAD gets the head only")
    func notFoundAndMethods() async throws {
        let server = try Self.server()
        let missing = await RawClient.exchange(port: server.port, "GET /nope HTTP/1.1\r\nConnection: close\r\n\r\n")
        #expect(missing.hasPrefix("HTTP/1.1 404 Not Found\r\n"))
        let wrongMethod = await RawClient.exchange(port: server.port, "DELETE /hello HTTP/1.1\r\nConnection: close\r\n\r\n")
        #expect(wrongMethod.hasPrefix("HTTP/1.1 405 Method Not Allowed\r\n"))
        #expect(wrongMethod.contains("Allow: GET\r\n"))
        let head = await RawClient.exchange(port: server.port, "HEAD /hello HTTP/1.1\r\nConnection: close\r\n\r\n")
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n") && head.contains("Content-Length: 17\r\n") && head.hasSuffix("\r\n\r\n"))
    }

    @Test("reads a Content-Length body, a chunked body, and answers Expect: 100-continue")
    func requestBodies() async throws {
        let server = try Self.server()
        let sized = await RawClient.exchange(
            port: server.port, "POST /echo HTTP/1.1\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
        #expect(sized.hasSuffix("\r\n\r\nhello"))
        let chunked = await RawClient.exchange(
            port: server.port,
            """
            POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n\
            5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: x\r\n\r\n
            """)
        #expect(chunked.hasPrefix("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"))
        #expect(chunked.hasSuffix("\r\n\r\nhello world"))
    }

    @Test(
        "refuses what it cannot frame safely with a status, then closes",
        arguments: [
            ("GARBAGE\r\n\r\n", "400"),
            ("GET /hello HTTP/2.0\r\n\r\n", "400"),
            ("GET hello HTTP/1.1\r\n\r\n", "400"),
            ("GET /hello HTTP/1.1\r\nBad Name: x\r\n\r\n", "400"),
            ("GET /hello HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", "400"),
            ("POST /echo HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", "400"),
            ("POST /echo HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello", "400"),
            ("POST /echo HTTP/1.1\r\nContent-Length: -1\r\n\r\n", "400"),
            ("POST /echo HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", "501"),
            ("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "400"),
            ("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n", "400"),
            ("POST /echo HTTP/1.1\r\nContent-Length: 2048\r\n\r\n", "413"),
            ("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n800\r\n", "413"),
            ("GET /hello HTTP/1.1\r\nX: \(String(repeating: "a", count: 5_000))\r\n\r\n", "431"),
            ("GET /hello HTTP/1.1\r\n" + String(repeating: "A: b\r\n", count: 21) + "\r\n", "431"),
        ])
    func refusals(request: String, status: String) async throws {
        let server = try Self.server(limits: ServerLimits(maxHeadBytes: 4_096, maxHeaderFields: 20, maxBodyBytes: 1_024))
        let response = await RawClient.exchange(port: server.port, request, finishSending: true)
        #expect(response.hasPrefix("HTTP/1.1 \(status) "))
        #expect(response.contains("Connection: close\r\n"))
    }

    @Test("a request cut off mid-way ends the connection without an answer")
    func truncatedRequest() async throws {
        let server = try Self.server()
        let response = await RawClient.exchange(
            port: server.port, "POST /echo HTTP/1.1\r\nContent-Length: 10\r\n\r\nhal", finishSending: true)
        #expect(response.isEmpty)
    }

    @Test("past maxConnections a new connection is closed at once; the others keep being served")
    func connectionLimit() async throws {
        let server = try SandboxServer(identity: nil, limits: ServerLimits(maxConnections: 1))
        let release = DispatchSemaphore(value: 0)
        server.route("GET", "/hold") { _ in
            release.wait()
            return SandboxResponse(status: 204)
        }
        async let held = RawClient.exchange(port: server.port, "GET /hold HTTP/1.1\r\nConnection: close\r\n\r\n")
        while server.connectionCount == 0 { await Task.yield() }
        let refused = await RawClient.exchange(port: server.port, "GET /hold HTTP/1.1\r\nConnection: close\r\n\r\n")
        #expect(refused.isEmpty)
        release.signal()
        #expect(await held.hasPrefix("HTTP/1.1 204 No Content\r\n"))
    }

    @Test("stop() ends a response still waiting out its delay and closes the listener; a released server stops too")
    func stopping() async throws {
        let server = try SandboxServer(identity: nil)
        server.route("GET", "/slow") { _ in SandboxResponse(status: 200, delay: .seconds(3_600)) }
        async let pending = RawClient.exchange(port: server.port, "GET /slow HTTP/1.1\r\n\r\n")
        while server.connectionCount == 0 { await Task.yield() }
        server.stop()
        #expect(await pending.isEmpty)
        #expect(await !RawClient.connects(port: server.port))

        var released: SandboxServer? = try SandboxServer(identity: nil)
        let port = try #require(released?.port)
        #expect(await RawClient.connects(port: port))
        released = nil
        #expect(await !RawClient.connects(port: port))
    }
}
