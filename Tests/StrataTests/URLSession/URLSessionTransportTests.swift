#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import Testing
import TestServer
import TestSupport

@Suite("URLSessionTransport against a loopback server")
struct URLSessionTransportTests {
    let server: LoopbackHTTPServer
    let transport = URLSessionTransport(requestTimeout: .seconds(30))

    init() throws { server = try LoopbackHTTPServer() }

    func post(_ path: String, body: String, method: String = "POST", on server: LoopbackHTTPServer? = nil) -> URLRequest {
        var request = URLRequest(url: (server ?? self.server).url(path))
        request.httpMethod = method
        request.httpBody = Data(body.utf8)
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        return request
    }

    // MARK: 401 with a Basic challenge

    @Test(
        "a 401 carrying WWW-Authenticate: Basic or Digest comes back as a 401 response instead of hanging",
        arguments: ["Basic realm=\"x\"", "Digest realm=\"x\", nonce=\"n\"", "Bearer"])
    func challengeReturns(challenge: String) async throws {
        server.route("/private", response: .init(status: 401, headers: [("WWW-Authenticate", challenge)], text: "denied"))
        let started = ContinuousClock.now
        let response = try await transport.send(URLRequest(url: server.url("/private")))
        #expect(response.statusCode == 401)
        #expect(response.text == "denied")
        #expect(response.headers["www-authenticate"] == challenge)
        // Unfixed, the request never completes (the request timeout does not fire either); the
        // bound only catches that, above the stalls of the parallel suite on two cores (up to 7.6 s).
        #expect(ContinuousClock.now - started < TestTimeScale.scaled(.seconds(20)))
    }

    // MARK: Redirects

    @Test("a redirect to another origin drops Authorization, Cookie and Proxy-Authorization")
    func crossOriginStripsCredentials() async throws {
        let other = try LoopbackHTTPServer()
        other.route("/landing", response: .init(text: "there"))
        server.route("/go", response: .init(status: 302, headers: [("Location", other.url("/landing").absoluteString)]))
        var request = URLRequest(url: server.url("/go"))
        for name in ["Authorization", "Cookie", "Proxy-Authorization", "X-Custom"] {
            request.setValue("secret-\(name)", forHTTPHeaderField: name)
        }
        let response = try await transport.send(request)
        #expect(response.text == "there")
        #expect(response.url?.port == other.port)
        let forwarded = try #require(other.requests.first)
        #expect(forwarded.header("Authorization") == nil)
        #expect(forwarded.header("Cookie") == nil)
        #expect(forwarded.header("Proxy-Authorization") == nil)
        #expect(forwarded.header("X-Custom") == "secret-X-Custom")
    }

    @Test("a redirect within the same origin keeps Authorization")
    func sameOriginKeepsCredentials() async throws {
        server.route("/go", response: .init(status: 301, headers: [("Location", "/landing")]))
        server.route("/landing", response: .init(text: "here"))
        var request = URLRequest(url: server.url("/go"))
        request.setValue("Bearer abc", forHTTPHeaderField: "Authorization")
        _ = try await transport.send(request)
        #expect(server.requests.last?.header("Authorization") == "Bearer abc")
    }

    @Test("307 and 308 keep the method and the body", arguments: [(307, "POST"), (308, "PUT"), (307, "PATCH")])
    func temporaryRedirectKeepsBody(status: Int, method: String) async throws {
        server.route("/old", response: .init(status: status, headers: [("Location", "/new")]))
        server.route("/new") { request in .init(status: 200, body: request.body) }
        let response = try await transport.send(post("/old", body: "payload", method: method))
        #expect(response.text == "payload")
        #expect(server.requests.last?.method == method)
        #expect(server.requests.last?.header("Content-Type") == "text/plain")
    }

    @Test("303 turns a POST into a GET without a body")
    func seeOtherBecomesGet() async throws {
        server.route("/form", response: .init(status: 303, headers: [("Location", "/result")]))
        server.route("/result") { request in .init(text: "\(request.method) \(request.body.count)") }
        let response = try await transport.send(post("/form", body: "payload"))
        #expect(response.text == "GET 0")
        #expect(server.requests.last?.header("Content-Type") == nil)
    }

    @Test("302 turns a POST into a GET, as browsers do")
    func foundBecomesGet() async throws {
        server.route("/form", response: .init(status: 302, headers: [("Location", "/result")]))
        server.route("/result") { request in .init(text: request.method) }
        #expect(try await transport.send(post("/form", body: "x")).text == "GET")
    }

    @Test("a redirect loop fails with tooManyRedirects")
    func redirectLoop() async throws {
        server.route("/loop", response: .init(status: 302, headers: [("Location", "/loop")]))
        let limited = URLSessionTransport(requestTimeout: .seconds(30), limits: .init(maxRedirects: 3))
        await #expect {
            _ = try await limited.send(URLRequest(url: server.url("/loop")))
        } throws: { error in
            (error as? TransportError)?.kind == .tooManyRedirects
        }
        #expect(server.requestCount == 4)
    }

    @Test("with maxRedirects 0, a redirect is returned as a response for a layer above to follow")
    func redirectsNotFollowed() async throws {
        server.route("/go", response: .init(status: 307, headers: [("Location", "/landing")]))
        let manual = URLSessionTransport(requestTimeout: .seconds(30), limits: .init(maxRedirects: 0))
        let response = try await manual.send(URLRequest(url: server.url("/go")))
        #expect(response.statusCode == 307)
        #expect(response.headers["Location"] == "/landing")
        #expect(server.requestCount == 1)
    }

    @Test("a redirect to a non-HTTP location is returned as is")
    func nonHTTPRedirect() async throws {
        server.route("/ftp", response: .init(status: 302, headers: [("Location", "ftp://example.com/file")]))
        #expect(try await transport.send(URLRequest(url: server.url("/ftp"))).statusCode == 302)
    }

    // MARK: Errors

    @Test("no response within the timeout is timedOut")
    func timeout() async throws {
        server.route("/slow", response: .init(text: "late", delay: .seconds(30)))
        let quick = URLSessionTransport(requestTimeout: .milliseconds(300))
        await #expect {
            _ = try await quick.send(URLRequest(url: server.url("/slow")))
        } throws: { error in
            guard let error = error as? TransportError else { return false }
            return error.kind == .timedOut && error.isTransient && error.url == server.url("/slow")
        }
    }

    @Test("a refused connection is cannotConnect")
    func cannotConnect() async throws {
        let closed = try RefusingPort()
        let url = closed.url("/x")
        await #expect {
            _ = try await transport.send(URLRequest(url: url))
        } throws: { error in
            guard let error = error as? TransportError else { return false }
            return error.kind == .cannotConnect && error.isTransient
        }
    }

    @Test("a connection that closes mid-body is connectionLost")
    func connectionLost() async throws {
        server.route("/cut", response: .raw("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc"))
        await #expect {
            _ = try await transport.send(URLRequest(url: server.url("/cut")))
        } throws: { error in
            guard let error = error as? TransportError else { return false }
            return error.kind == .connectionLost && error.isTransient
        }
    }

    @Test("a TLS handshake failure is tls and not transient")
    func tlsFailure() async throws {
        let plain = try LoopbackHTTPServer(greeting: Data("HTTP/1.1 400 Bad Request\r\n\r\n".utf8))
        let url = try #require(URL(string: "https://127.0.0.1:\(plain.port)/"))
        await #expect {
            _ = try await transport.send(URLRequest(url: url))
        } throws: { error in
            guard let error = error as? TransportError else { return false }
            return error.kind == .tls && !error.isTransient
        }
    }

    @Test("a body over the limit fails with invalidResponse", arguments: [true, false])
    func bodyLimit(declaredLength: Bool) async throws {
        let body = Data(repeating: 0x61, count: 4096)
        let response: LoopbackHTTPServer.Response =
            declaredLength
            ? .init(body: body)
            : .raw(Data("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".utf8) + body)
        server.route("/big", response: response)
        let small = URLSessionTransport(requestTimeout: .seconds(30), limits: .init(maxResponseBodyBytes: 1024))
        await #expect {
            _ = try await small.send(URLRequest(url: server.url("/big")))
        } throws: { error in
            guard let error = error as? TransportError else { return false }
            return error.kind == .invalidResponse && error.message.contains("1024")
        }
    }

    @Test("a header name that is not a token is refused before anything is sent")
    func badHeaderNameRefused() async throws {
        var request = URLRequest(url: server.url("/"))
        request.setValue("v", forHTTPHeaderField: "X Bad:Name")
        await #expect {
            _ = try await transport.send(request)
        } throws: { error in
            (error as? TransportError)?.kind == .invalidRequest
        }
        #expect(server.requestCount == 0)
    }

    @Test("a header value carrying CR/LF never reaches the server")
    func injectedValueNeverSent() async throws {
        var request = URLRequest(url: server.url("/"))
        request.setValue("a\r\nX-Injected: 1", forHTTPHeaderField: "X-Test")
        do { _ = try await transport.send(request) } catch let error as TransportError { #expect(error.kind == .invalidRequest) }
        #expect(server.requests.allSatisfy { $0.header("X-Injected") == nil && $0.header("X-Test") == nil })
    }

    @Test("a non-HTTP URL is refused as invalidRequest")
    func nonHTTPURL() async throws {
        await #expect {
            _ = try await transport.send(URLRequest(url: URL(string: "file:///etc/passwd")!))
        } throws: { error in
            (error as? TransportError)?.kind == .invalidRequest
        }
    }

    // MARK: Cancellation

    @Test("cancelling the calling task cancels the request and throws CancellationError promptly")
    func cancellation() async throws {
        server.route("/slow", response: .init(text: "late", delay: .seconds(30)))
        let transport = self.transport
        let url = server.url("/slow")
        let task = Task { try await transport.send(URLRequest(url: url)) }
        while server.requestCount == 0 { await Task.yield() }
        let cancelled = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        // Half the 30 s the server would take: what a stall of the parallel suite on two cores
        // cannot reach (up to 7.6 s measured), what a cancel that waits for the server must.
        #expect(ContinuousClock.now - cancelled < TestTimeScale.scaled(.seconds(15)))
    }

    @Test("an already cancelled task sends nothing")
    func cancelledBeforeSending() async throws {
        let transport = self.transport
        let url = server.url("/")
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(URLRequest(url: url))
        }
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(server.requestCount == 0)
    }

    // MARK: Session configuration

    @Test("cookies are neither stored nor sent")
    func noCookies() async throws {
        server.route("/set", response: .init(headers: [("Set-Cookie", "session=abc; Path=/")], text: "ok"))
        server.route("/check", response: .init(text: "ok"))
        _ = try await transport.send(URLRequest(url: server.url("/set")))
        _ = try await transport.send(URLRequest(url: server.url("/check")))
        #expect(server.requests.last?.header("Cookie") == nil)
    }

    @Test("nothing is answered from a URL cache")
    func noURLCache() async throws {
        server.route("/cacheable", response: .init(headers: [("Cache-Control", "max-age=3600"), ("ETag", "\"v1\"")], text: "fresh"))
        _ = try await transport.send(URLRequest(url: server.url("/cacheable")))
        _ = try await transport.send(URLRequest(url: server.url("/cacheable")))
        #expect(server.requestCount == 2)
        #expect(server.requests.last?.header("If-None-Match") == nil)
    }

    @Test("headers are read case-insensitively and repeated ones are kept")
    func responseHeaders() async throws {
        server.route("/h", response: .init(headers: [("etag", "\"abc\""), ("X-Multi", "1")], text: "ok"))
        let response = try await transport.send(URLRequest(url: server.url("/h")))
        #expect(response.headers["ETag"] == "\"abc\"")
        #expect(response.url == server.url("/h"))
    }
}
