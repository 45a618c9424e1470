#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataTesting
import Testing

private typealias Doubles = ReauthDoubles

@Suite("ReauthTransport: recognising its token without asking the auth service each time", .timeLimit(.minutes(1)))
struct ReauthRecognitionTests {
    /// An auth service that counts how often it is asked for the token.
    actor CountingAuthService: AuthServiceProtocol {
        private var token: String?
        private(set) var asked = 0

        init(token: String?) { self.token = token }

        func accessToken() async -> String? {
            asked += 1
            return token
        }

        func setAccessToken(_ token: String?) async { self.token = token }
    }

    @Test("requests carrying the token last seen as current ask the auth service once, not once per request")
    func currentTokenAsksOnce() async throws {
        let auth = CountingAuthService(token: "t1")
        let server = ClosureTransport { _ in HTTPResponse(statusCode: 200) }
        let reauth = ReauthTransport(inner: server, authService: auth) {}
        for _ in 0..<5 { _ = try await reauth.send(Doubles.request("/items", authorization: "Bearer t1")) }
        #expect(await auth.asked == 1)
    }

    @Test("a new token is recognised and renewed on 401 after the old one was seen; the old one is still ours")
    func newTokenAfterOld() async throws {
        let auth = CountingAuthService(token: "t1")
        let refreshes = LockedValue(0)
        let server = ClosureTransport { request in
            HTTPResponse(statusCode: request.headers["Authorization"] == "Bearer t3" ? 200 : 401)
        }
        let reauth = ReauthTransport(inner: server, authService: auth) { [auth, refreshes] in
            refreshes.withLock { $0 += 1 }
            await auth.setAccessToken("t3")
        }
        _ = try await reauth.send(Doubles.request("/items", authorization: "Bearer t1")) // Refreshes to t3.
        #expect(refreshes.withLock { $0 } == 1)
        await auth.setAccessToken("t2") // A new sign-in, not a refresh.
        let renewed = try await reauth.send(Doubles.request("/items", authorization: "Bearer t2"))
        #expect(renewed.statusCode == 200, "t2 was recognised, refreshed to t3 and resent")
        #expect(refreshes.withLock { $0 } == 2)
        let late = try await reauth.send(Doubles.request("/items", authorization: "Bearer t1"))
        #expect(late.statusCode == 200, "t1, issued earlier and replaced, is resent with the current token")
        #expect(refreshes.withLock { $0 } == 2)
    }
}
