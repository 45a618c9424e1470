#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import Testing
import TestServer

@Suite("ReauthTransport refreshes only for a 401 from the origin its token was sent to")
struct ReauthOriginTests {
    private func request(_ url: URL) -> URLRequest {
        var request = URLRequest(url: url)
        request.setValue("Bearer old", forHTTPHeaderField: "Authorization")
        return request
    }

    /// Sends `path` with the token "old" through a ReauthTransport whose refresh sets "new";
    /// returns the response and how many refreshes ran.
    private func send(_ path: String, to server: LoopbackHTTPServer) async throws -> (HTTPResponse, refreshes: Int, token: String?) {
        let auth = InMemoryAuthService(accessToken: "old")
        let refreshes = LockedValue(0)
        let transport = ReauthTransport(inner: URLSessionTransport(requestTimeout: .seconds(30)), authService: auth) {
            refreshes.withLock { $0 += 1 }
            await auth.setAccessToken("new")
        }
        let response = try await transport.send(request(server.url(path)))
        return (response, refreshes.withLock { $0 }, await auth.accessToken())
    }

    @Test("after a cross-origin redirect, the other origin's 401 is returned without a refresh")
    func otherOrigin401() async throws {
        let server = try LoopbackHTTPServer()
        server.route("/go", response: .init(status: 302, headers: [("Location", "http://localhost:\(server.port)/elsewhere")]))
        server.route("/elsewhere", response: .init(status: 401, text: "not yours"))
        let (response, refreshes, token) = try await send("/go", to: server)
        #expect(response.statusCode == 401)
        #expect(refreshes == 0)
        #expect(token == "old")
        #expect(server.requests.map(\.path) == ["/go", "/elsewhere"])
    }

    @Test("a 401 from the origin the token was sent to, after a same-origin redirect, still refreshes")
    func sameOrigin401() async throws {
        let server = try LoopbackHTTPServer()
        server.route("/go", response: .init(status: 302, headers: [("Location", "/me")]))
        server.route("/me") { request in
            request.header("Authorization") == "Bearer new" ? .init(text: "me") : .init(status: 401)
        }
        let (response, refreshes, _) = try await send("/go", to: server)
        #expect(response.statusCode == 200)
        #expect(refreshes == 1)
    }
}
