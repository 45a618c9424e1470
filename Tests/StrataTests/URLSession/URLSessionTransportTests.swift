#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import Testing
import TestServer

@Suite("URLSessionTransport against a loopback server")
struct URLSessionTransportTests {
    let server: LoopbackHTTPServer
    let transport = URLSessionTransport(requestTimeout: 5)

    init() throws { server = try LoopbackHTTPServer() }

    @Test("a 401 carrying WWW-Authenticate: Basic comes back as a 401 response instead of hanging")
    func basicChallengeReturns() async throws {
        server.route("/private", response: .init(status: 401, headers: [("WWW-Authenticate", "Basic realm=\"x\"")],
                                                 text: "denied"))
        let response = try await transport.send(URLRequest(url: server.url("/private")))
        #expect(response.statusCode == 401)
        #expect(response.text == "denied")
        #expect(response.headers["www-authenticate"] == "Basic realm=\"x\"")
    }

    @Test("307 keeps the method and body of a POST")
    func temporaryRedirectKeepsBody() async throws {
        server.route("/old", response: .init(status: 307, headers: [("Location", "/new")]))
        server.route("/new") { request in .init(status: 200, body: request.body) }
        var request = URLRequest(url: server.url("/old"))
        request.httpMethod = "POST"
        request.httpBody = Data("payload".utf8)
        let response = try await transport.send(request)
        #expect(response.text == "payload")
        #expect(server.requests.last?.method == "POST")
    }
}
