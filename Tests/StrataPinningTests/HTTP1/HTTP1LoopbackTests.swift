#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Strata
import StrataConnect
@testable import StrataPinning
import Testing
import TestServer

@Suite("HTTP1Connection over POSIXSocketStream against the loopback server")
struct HTTP1LoopbackTests {
    let server: LoopbackHTTPServer

    init() throws { server = try LoopbackHTTPServer() }

    /// Runs blocking socket work on a thread of its own, as PinningTransport will, so it never
    /// occupies a thread of Swift's cooperative pool.
    private static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    private static func connect(
        _ server: LoopbackHTTPServer, idleTimeout: Duration = .seconds(5),
        limits: HTTPLimits = .default
    ) throws -> HTTP1Connection<POSIXSocketStream> {
        let stream = try POSIXSocketStream.connect(
            host: "127.0.0.1", port: server.port, connectTimeout: .seconds(5),
            idleTimeout: idleTimeout)
        return HTTP1Connection(stream: stream, limits: limits)
    }

    private static func request(
        _ url: URL, method: String = "GET", body: Data? = nil,
        headers: [String: String] = [:]
    ) throws -> HTTP1Request {
        let request = HTTPRequest(
            method: HTTPMethod(rawValue: method), url: url,
            headers: HTTPHeaders(headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        return try HTTP1RequestEncoder.encode(request, body: body.map { [UInt8]($0) } ?? [])
    }

    /// Sends one request on a fresh connection and returns the exchange's error.
    private static func exchangeError(
        _ server: LoopbackHTTPServer, _ path: String,
        limits: HTTPLimits = .default
    ) async throws -> HTTP1ExchangeError? {
        try await Self.onOwnThread {
            var connection = try connect(server, limits: limits)
            let request = try request(server.url(path))
            do throws(HTTP1ExchangeError) {
                _ = try connection.send(request, deadline: .now + .seconds(5))
                return nil
            } catch {
                return error
            }
        }
    }

    @Test("500 sequential requests travel over one keep-alive connection")
    func fiveHundredOnOneConnection() async throws {
        server.route("/echo") { request in .init(text: request.query ?? "") }
        let server = server
        let mismatches = try await Self.onOwnThread {
            var connection = try Self.connect(server)
            var mismatches = 0
            for index in 0..<500 {
                let response = try connection.send(Self.request(server.url("/echo?\(index)")), deadline: .now + .seconds(5))
                if response.statusCode != 200 || response.text != "\(index)" { mismatches += 1 }
            }
            return mismatches
        }
        #expect(mismatches == 0)
        #expect(server.requestCount == 500)
        #expect(server.connectionCount == 1)
    }

    @Test("a POST body reaches the server and a chunked response with trailers comes back on the same connection")
    func postAndChunked() async throws {
        server.route("/echo", method: "POST") { request in .init(body: request.body) }
        server.route(
            "/chunked",
            response: .init(
                headers: [("Transfer-Encoding", "chunked")],
                body: Data("5\r\nhello\r\n1;x=y\r\n!\r\n0\r\nX-Sum: 6\r\n\r\n".utf8)))
        let server = server
        let (echoed, chunked) = try await Self.onOwnThread {
            var connection = try Self.connect(server)
            let payload = Data(BodyPattern.bytes(from: 0, count: 200_000))
            let echoed = try connection.send(
                Self.request(server.url("/echo"), method: "POST", body: payload),
                deadline: .now + .seconds(5))
            let chunked = try connection.send(Self.request(server.url("/chunked")), deadline: .now + .seconds(5))
            return (echoed.body == payload, chunked)
        }
        #expect(echoed)
        #expect(chunked.text == "hello!")
        #expect(chunked.trailers["x-sum"] == "6")
        #expect(server.requests.first?.header("Content-Length") == "200000")
        #expect(server.connectionCount == 1)
    }

    @Test("64 concurrent exchanges of a 1 MB body, each on its own connection, all arrive intact")
    func concurrentLargeBodies() async throws {
        server.route("/echo", method: "POST") { request in .init(body: request.body) }
        let server = server
        let payload = Data(BodyPattern.bytes(from: 0, count: 1 << 20))
        let intact = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<64 {
                group.addTask {
                    try await Self.onOwnThread {
                        var connection = try Self.connect(server)
                        let response = try connection.send(
                            Self.request(server.url("/echo"), method: "POST", body: payload),
                            deadline: .now + .seconds(30))
                        return response.body == payload
                    }
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(intact == 64)
        #expect(server.connectionCount == 64)
    }

    @Test("a HEAD response has no body and the connection carries the next GET")
    func headThenGet() async throws {
        server.route("/doc", response: .init(text: "document"))
        let server = server
        let (head, get) = try await Self.onOwnThread {
            var connection = try Self.connect(server)
            let head = try connection.send(Self.request(server.url("/doc"), method: "HEAD"), deadline: .now + .seconds(5))
            let get = try connection.send(Self.request(server.url("/doc")), deadline: .now + .seconds(5))
            return (head, get)
        }
        #expect(head.headers["Content-Length"] == "8")
        #expect(head.body.isEmpty)
        #expect(get.text == "document")
        #expect(server.connectionCount == 1)
    }

    @Test("100 Continue sent by the server is skipped")
    func continueSkipped() async throws {
        server.route("/upload") { request in .init(status: 201, text: "\(request.body.count)") }
        let server = server
        let response = try await Self.onOwnThread {
            var connection = try Self.connect(server)
            return try connection.send(
                Self.request(
                    server.url("/upload"), method: "PUT", body: Data(count: 10),
                    headers: ["Expect": "100-continue"]), deadline: .now + .seconds(5))
        }
        #expect(response.statusCode == 201)
        #expect(response.interimStatusCodes == [100])
        #expect(response.text == "10")
    }

    @Test("Connection: close from the server ends reuse of the connection")
    func serverSaysClose() async throws {
        server.route("/bye", response: .init(text: "bye", closeConnection: true))
        let server = server
        let reusable = try await Self.onOwnThread {
            var connection = try Self.connect(server)
            _ = try connection.send(Self.request(server.url("/bye")), deadline: .now + .seconds(5))
            return connection.isReusable
        }
        #expect(!reusable)
    }

    @Test("a server that closes in the middle of the response body yields connectionLost")
    func closeMidResponse() async throws {
        server.route("/cut", response: .raw("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial"))
        let error = try await Self.exchangeError(server, "/cut")
        #expect(error?.error.kind == .connectionLost)
        #expect(error?.error.underlying as? HTTP1ResponseError == .truncatedBody(expectedBytes: 100, receivedBytes: 7))
    }

    @Test("a server that resets the connection mid-response yields connectionLost and the process lives on")
    func resetMidResponse() async throws {
        server.route("/reset", response: .reset(after: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial"))
        let error = try await Self.exchangeError(server, "/reset")
        #expect(error?.error.kind == .connectionLost)
        #expect(error?.error.message.contains("Connection reset by peer") == true)
    }

    @Test(
        "raw malformed responses each give their own typed error",
        arguments: [
            ("HTTP/1.1 OK\r\n\r\n", HTTP1ResponseError.invalidStatusCode(.notThreeDigits(shown: "\"OK\""))),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nnope\r\n", .invalidChunkSize(excerpt: "\"nope\"")),
            (
                "HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "b", count: 70_000) + "\r\n\r\n",
                .headerBlockTooLarge(limit: 64 * 1024)
            ),
            ("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", .truncatedBody(expectedBytes: 10, receivedBytes: 3)),
            ("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", .conflictingContentLength(first: 1, second: 2)),
        ])
    func malformedResponses(raw: String, expected: HTTP1ResponseError) async throws {
        server.route("/bad", response: .raw(raw))
        let error = try await Self.exchangeError(server, "/bad")
        #expect(error?.error.underlying as? HTTP1ResponseError == expected)
        #expect(error?.error.kind == (expected.isTruncation ? .connectionLost : .invalidResponse))
        #expect(error?.error.description.contains(server.url("/bad").absoluteString) == true)
    }

    @Test("a body over the configured limit is refused while it streams in")
    func bodyLimit() async throws {
        server.route("/big", response: .init(body: Data(count: 100_000)))
        let error = try await Self.exchangeError(server, "/big", limits: HTTPLimits(maxResponseBodyBytes: 10_000))
        #expect(error?.error.underlying as? HTTP1ResponseError == .bodyTooLarge(limit: 10_000))
    }

    @Test("after the server drops an idle keep-alive connection, the next request fails before any response byte")
    func serverClosedIdleConnection() async throws {
        server.route("/a", response: .init(text: "a"))
        let server = server
        let error = try await Self.onOwnThread {
            var connection = try Self.connect(server)
            _ = try connection.send(Self.request(server.url("/a")), deadline: .now + .seconds(5))
            server.stop()
            let request = try Self.request(server.url("/a"))
            do throws(HTTP1ExchangeError) {
                _ = try connection.send(request, deadline: .now + .seconds(5))
                return nil as HTTP1ExchangeError?
            } catch {
                return error
            }
        }
        #expect(error?.error.kind == .connectionLost)
        #expect(error?.receivedResponseBytes == false)
    }

    @Test("an idle keep-alive socket is not readable until the server closes it")
    func idleReadability() async throws {
        server.route("/a", response: .init(text: "a"))
        let server = server
        let (before, after) = try await Self.onOwnThread {
            var connection = try Self.connect(server)
            _ = try connection.send(Self.request(server.url("/a")), deadline: .now + .seconds(5))
            let before = connection.stream.isReadable
            server.stop()
            // stop() has shut the server side down; wait (bounded) for the FIN to arrive.
            var request = pollfd(fd: connection.stream.descriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&request, 1, 5_000)
            return (before, connection.stream.isReadable)
        }
        #expect(!before)
        #expect(after)
    }

    @Test("writing a large body to a peer that has gone away is connectionLost, not SIGPIPE")
    func writeToClosedPeer() async throws {
        server.route("/a", response: .init(text: "a"))
        let server = server
        let errors = try await Self.onOwnThread {
            var connection = try Self.connect(server)
            _ = try connection.send(Self.request(server.url("/a")), deadline: .now + .seconds(5))
            server.stop()
            // Write straight to the stream repeatedly: the first write may still be accepted by
            // the kernel; a later one meets the reset peer and must fail with EPIPE/ECONNRESET.
            let block = [UInt8](repeating: 0x41, count: 1 << 20)
            var kinds: [TransportError.Kind] = []
            for _ in 0..<8 {
                do {
                    try block.withUnsafeBytes { try connection.stream.write($0, deadline: .now + .seconds(5)) }
                } catch let error as TransportError {
                    kinds.append(error.kind)
                } catch {
                    kinds.append(.other)
                }
            }
            return kinds
        }
        #expect(!errors.isEmpty)
        #expect(errors.allSatisfy { $0 == .connectionLost })
    }

    @Test("a server that stops sending hits the stream's idle timeout")
    func idleTimeout() async throws {
        server.route("/slow", response: .init(text: "late", delay: .seconds(30)))
        let server = server
        let error = try await Self.onOwnThread {
            var connection = try Self.connect(server, idleTimeout: .milliseconds(100))
            let request = try Self.request(server.url("/slow"))
            do throws(HTTP1ExchangeError) {
                _ = try connection.send(request, deadline: .now + .seconds(30))
                return nil as HTTP1ExchangeError?
            } catch {
                return error
            }
        }
        #expect(error?.error.kind == .timedOut)
        #expect(error?.error.message.contains("idle timeout") == true)
    }

    @Test("the whole-request deadline ends a wait shorter than the idle timeout")
    func wholeRequestDeadline() async throws {
        server.route("/slow", response: .init(text: "late", delay: .seconds(30)))
        let server = server
        let error = try await Self.onOwnThread {
            var connection = try Self.connect(server, idleTimeout: .seconds(30))
            let request = try Self.request(server.url("/slow"))
            do throws(HTTP1ExchangeError) {
                _ = try connection.send(request, deadline: .now + .milliseconds(100))
                return nil as HTTP1ExchangeError?
            } catch {
                return error
            }
        }
        #expect(error?.error.kind == .timedOut)
        #expect(error?.error.message.contains("deadline") == true)
    }

    @Test("a refused connection is cannotConnect; an unresolvable host too")
    func cannotConnect() async throws {
        let port = server.port
        server.stop()
        let errors = try await Self.onOwnThread {
            var kinds: [TransportError.Kind] = []
            for host in ["127.0.0.1", "no-such-host.invalid"] {
                do throws(TransportError) {
                    _ = try POSIXSocketStream.connect(
                        host: host, port: port, connectTimeout: .seconds(5),
                        idleTimeout: .seconds(5))
                } catch {
                    kinds.append(error.kind)
                }
            }
            return kinds
        }
        #expect(errors == [.cannotConnect, .cannotConnect])
    }
}
