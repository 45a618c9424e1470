#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataTesting
import Testing

private typealias Doubles = ReauthDoubles

@Suite("ReauthTransport: what it leaves alone", .timeLimit(.minutes(1)))
struct ReauthPassThroughTests {
    let auth = InMemoryAuthService(accessToken: "old")
    let refreshes = LockedValue(0)

    /// A server that rejects everything, and a ReauthTransport whose refresh would fix it.
    private func makeStack(status: Int = 401) -> (CannedRoutesTransport, ReauthTransport) {
        let server = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(pathRegex: "/.*"), response: .status(status))
        ])
        let reauth = ReauthTransport(inner: server, authService: auth) { [auth, refreshes] in
            refreshes.withLock { $0 += 1 }
            await auth.setAccessToken("new")
        }
        return (server, reauth)
    }

    @Test("a 401 for a request without an Authorization header is returned as is, and no token is added")
    func noAuthorizationPassesThrough() async throws {
        let (server, reauth) = makeStack()
        let response = try await reauth.send(Doubles.request("/public"))

        #expect(response.statusCode == 401)
        #expect(refreshes.withLock { $0 } == 0)
        let sent = await server.recordedRequests
        #expect(sent.count == 1)
        #expect(sent.first?.headers["Authorization"] == nil)
    }

    @Test(
        "a 401 for a request whose caller set its own Authorization is returned untouched",
        arguments: ["Bearer someone-elses-token", "Basic dXNlcjpwYXNz", "bearer-ish old"])
    func foreignAuthorizationPassesThrough(authorization: String) async throws {
        let (server, reauth) = makeStack()
        let response = try await reauth.send(Doubles.request("/theirs", authorization: authorization))

        #expect(response.statusCode == 401)
        #expect(refreshes.withLock { $0 } == 0)
        #expect(await server.recordedRequests.map { $0.headers["Authorization"] } == [authorization])
    }

    @Test("a response other than 401 to a request with our token is returned as is", arguments: [200, 403, 407, 500])
    func otherStatusesPassThrough(status: Int) async throws {
        let (server, reauth) = makeStack(status: status)
        let response = try await reauth.send(Doubles.request("/mine", authorization: "Bearer old"))

        #expect(response.statusCode == status)
        #expect(refreshes.withLock { $0 } == 0)
        #expect(await server.recordedRequests.count == 1)
    }

    @Test("a second 401, after the refresh and resend, is returned as is")
    func second401IsReturned() async throws {
        let (server, reauth) = makeStack()
        let response = try await reauth.send(Doubles.request("/mine", authorization: "Bearer old"))

        #expect(response.statusCode == 401)
        #expect(refreshes.withLock { $0 } == 1)
        #expect(
            await server.recordedRequests.map { $0.headers["Authorization"] }
                == ["Bearer old", "Bearer new"])
    }

    @Test("a 401 that arrives after the user signed out is returned as is, without refreshing")
    func signedOutMeanwhile() async throws {
        let server = ClosureTransport { [auth] request in
            await auth.setAccessToken(nil)
            return HTTPResponse(statusCode: 401)
        }
        let reauth = ReauthTransport(inner: server, authService: auth) { [refreshes] in refreshes.withLock { $0 += 1 } }

        #expect(try await reauth.send(Doubles.request("/mine", authorization: "Bearer old")).statusCode == 401)
        #expect(refreshes.withLock { $0 } == 0)
    }

    @Test("a 401 for a request with a streamed body is returned as is, since the stream cannot be sent again")
    func streamedBodyIsNotResent() async throws {
        let (server, reauth) = makeStack()
        var request = Doubles.request("/upload", authorization: "Bearer old")
        request.httpMethod = "PUT"
        request.httpBodyStream = InputStream(data: Data("payload".utf8))
        let response = try await reauth.send(request)

        #expect(response.statusCode == 401)
        #expect(refreshes.withLock { $0 } == 0)
        #expect(await server.recordedRequests.count == 1)
    }

    @Test("a refresh that leaves the token unchanged resends once, and the next 401 may refresh again")
    func unchangedTokenDoesNotBlockLaterRefreshes() async throws {
        let server = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(pathRegex: "/.*"), response: .status(401))
        ])
        let reauth = ReauthTransport(inner: server, authService: auth) { [refreshes] in refreshes.withLock { $0 += 1 } }

        #expect(try await reauth.send(Doubles.request("/a", authorization: "Bearer old")).statusCode == 401)
        #expect(try await reauth.send(Doubles.request("/b", authorization: "Bearer old")).statusCode == 401)
        #expect(refreshes.withLock { $0 } == 2)
        #expect(await server.recordedRequests.count == 4)
    }

    @Test("a refresh that saves no token fails every waiter with noTokenAfterRefresh")
    func refreshWithoutToken() async throws {
        let server = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(pathRegex: "/.*"), response: .status(401))
        ])
        let reauth = ReauthTransport(inner: server, authService: auth) { [auth] in await auth.setAccessToken(nil) }

        await #expect {
            try await reauth.send(Doubles.request("/a", authorization: "Bearer old"))
        } throws: { error in
            guard case ReauthError.noTokenAfterRefresh = error else { return false }
            return "\(error)".contains("setAccessToken")
        }
        #expect(await server.recordedRequests.count == 1)
    }

    @Test("a refreshed token that would inject a header is refused and never sent")
    func refreshedTokenWithNewlineIsRefused() async throws {
        let server = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(pathRegex: "/.*"), response: .status(401))
        ])
        let reauth = ReauthTransport(inner: server, authService: auth) { [auth] in
            await auth.setAccessToken("new\r\nX-Injected: 1")
        }

        await #expect {
            try await reauth.send(Doubles.request("/a", authorization: "Bearer old"))
        } throws: { error in
            guard case ReauthError.invalidToken = error else { return false }
            return true
        }
        #expect(await server.recordedRequests.count == 1)
    }
}
