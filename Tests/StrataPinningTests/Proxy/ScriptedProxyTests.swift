#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
@testable import StrataPinning
import Testing
import TestServer
import TestSupport
import TLSTestServer

@Suite("A misbehaving or TLS-inspecting proxy fails the pinned request with an error that says why")
struct ScriptedProxyTests {
    static func transport(
        proxy url: String, limits: HTTPLimits = .default,
        connectTimeout: Duration = .seconds(10)
    ) throws -> PinningTransport {
        try Pinning.transport(
            configuration: .init(
                connectTimeout: connectTimeout, requestTimeout: .seconds(30),
                limits: limits, proxy: ProxyConfiguration(url: url)))
    }

    /// A plain loopback server answering `CONNECT localhost:443` with `answer`.
    static func proxy(answering answer: LoopbackHTTPServer.Response) throws -> LoopbackHTTPServer {
        let proxy = try LoopbackHTTPServer()
        proxy.route("localhost:443", method: "CONNECT", response: answer)
        return proxy
    }

    static let origin = URL(string: "https://localhost/")!

    static func failure(_ transport: PinningTransport) async throws -> TransportError {
        let error = await Pinning.error { try await transport.send(Pinning.get(Self.origin)) }
        return try #require(error as? TransportError)
    }

    @Test("a 502 names the proxy without its credentials, after the CONNECT carried them as Basic")
    func badGateway() async throws {
        let proxy = try Self.proxy(answering: .raw("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n"))
        let failure = try await Self.failure(try Self.transport(proxy: "http://bob:hunter2@127.0.0.1:\(proxy.port)"))
        #expect(
            failure.underlying as? ProxyError
                == .tunnelRefused(
                    proxy: "http://<redacted>@127.0.0.1:\(proxy.port)",
                    target: "localhost:443", statusCode: 502,
                    reason: "Bad Gateway"))
        #expect(failure.kind == .cannotConnect)
        #expect(!failure.description.contains("hunter2"))
        let connect = try #require(proxy.requests.first)
        #expect(connect.method == "CONNECT")
        #expect(connect.header("Host") == "localhost:443")
        #expect(connect.header("Proxy-Authorization") == "Basic " + Data("bob:hunter2".utf8).base64EncodedString())
    }

    @Test(
        "a response head over the limit, bytes after a 200, and an early close are refused before any TLS",
        arguments: [
            ("HTTP/1.1 200 OK\r\nVia: " + String(repeating: "x", count: 2_000), "over the limit of 1024"),
            ("HTTP/1.1 200 Connection established\r\n\r\nHTTP/1.1 200 OK\r\n\r\nforged", "bytes followed its 200 answer"),
            ("HTTP/1.1 200 Connection est", "closed the connection before answering"),
            ("SSH-2.0-OpenSSH_9.2\r\n\r\n", "is not HTTP/1.x"),
        ])
    func brokenAnswers(answer: String, problem: String) async throws {
        let proxy = try Self.proxy(answering: .raw(answer))
        let failure = try await Self.failure(
            try Self.transport(
                proxy: "127.0.0.1:\(proxy.port)",
                limits: HTTPLimits(maxHeaderBlockBytes: 1024)))
        #expect(failure.underlying is ProxyError)
        #expect(failure.message.contains(problem), "\(failure.message)")
        #expect(failure.message.contains("http://127.0.0.1:\(proxy.port)"))
    }

    @Test("interim 1xx answers before the final one are skipped, a bounded number of them within the head limit")
    func interimAnswers() async throws {
        let interim = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\n"
        let proxy = try Self.proxy(answering: .raw(interim + "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n"))
        let failure = try await Self.failure(try Self.transport(proxy: "127.0.0.1:\(proxy.port)"))
        // The final answer decides, not the first interim one.
        #expect(
            failure.underlying as? ProxyError
                == .tunnelRefused(
                    proxy: "http://127.0.0.1:\(proxy.port)", target: "localhost:443",
                    statusCode: 502, reason: "Bad Gateway"))
        let endless = try Self.proxy(answering: .raw(String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 9)))
        let tooMany = try await Self.failure(try Self.transport(proxy: "127.0.0.1:\(endless.port)"))
        #expect(tooMany.message.contains("more than 8 interim (1xx) answers"), "\(tooMany.message)")
        let large = try Self.proxy(
            answering: .raw(
                String(
                    repeating: "HTTP/1.1 100 Continue\r\nVia: \(String(repeating: "x", count: 300))\r\n\r\n",
                    count: 4)))
        let overLimit = try await Self.failure(
            try Self.transport(
                proxy: "127.0.0.1:\(large.port)",
                limits: HTTPLimits(maxHeaderBlockBytes: 1024)))
        #expect(overLimit.message.contains("over the limit of 1024"), "\(overLimit.message)")
    }

    @Test("a proxy that never answers is given up at the connect timeout, naming it")
    func silentProxy() async throws {
        let proxy = try Self.proxy(answering: .init(status: 200, delay: .seconds(60)))
        defer { proxy.stop() }
        let transport = try Self.transport(
            proxy: "127.0.0.1:\(proxy.port)",
            connectTimeout: TestTimeScale.scaled(.milliseconds(300)))
        let failure = try await Self.failure(transport)
        #expect(failure.kind == .timedOut)
        #expect(failure.message.contains("did not answer the CONNECT to localhost:443 within the connect timeout"))
    }

    @Test("a proxy that cannot be reached is named as such")
    func unreachableProxy() async throws {
        let closed = try RefusingPort()
        let failure = try await Self.failure(try Self.transport(proxy: "http://u:p@127.0.0.1:\(closed.port)"))
        #expect(failure.kind == .cannotConnect)
        #expect(failure.message.contains("cannot reach the proxy http://<redacted>@127.0.0.1:\(closed.port)"))
    }

    @Test(
        "a TLS-inspecting proxy fails the pin check by design, and the error says so",
        arguments: [TLSLoopbackServer.Identity.forgedChain, .rsaLeaf])
    func inspectingProxy(presents identity: TLSLoopbackServer.Identity) async throws {
        // The proxy terminates TLS itself: with a certificate of its own CA (untrusted), or with
        // one the trust roots accept (a corporate CA installed as a root) but whose key is not pinned.
        let inspecting = try TLSLoopbackServer(identity: identity, answersCONNECT: true)
        inspecting.http.route("/", response: .init(text: "intercepted"))
        let events = PinningEventLog()
        let transport = events.observing(try Self.transport(proxy: "127.0.0.1:\(inspecting.port)"))
        let error = await Pinning.error { try await transport.send(Pinning.get(Self.origin)) }
        let failure = try #require(error as? TransportError)
        #expect(failure.kind == .tls)
        #expect(failure.serverTrustError != nil)
        #expect(failure.message.contains("a proxy that inspects TLS presents a certificate of its own, which pinning refuses by design"))
        #expect(failure.message.contains("http://127.0.0.1:\(inspecting.port)"))
        #expect(inspecting.connectRequests == ["CONNECT localhost:443 HTTP/1.1"])
        #expect(inspecting.http.requestCount == 0)
    }
}
