#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataTesting
import Testing

private typealias Doubles = ReauthDoubles

private struct Profile: Codable, Equatable {
    let name: String
}

private struct ProfileEndpoint: EndpointProtocol {
    var requiresAuth = true
    var path: String { "/me" }
    var method: HTTPMethod { .get }
}

@Suite("ReauthTransport under HTTPNetworkService", .timeLimit(.minutes(1)))
struct ReauthCompositionTests {
    let environment = DefaultAPIEnvironment(baseURL: URL(string: "https://api.example.com/v1")!)
    let auth = InMemoryAuthService(accessToken: "old")
    let refreshes = LockedValue(0)

    private var refreshToNew: @Sendable () async throws -> Void {
        { [auth, refreshes] in
            refreshes.withLock { $0 += 1 }
            await auth.setAccessToken("new")
        }
    }

    @Test("an endpoint that requires auth gets a 401, the token is refreshed once, and the resend decodes")
    func endToEndRefresh() async throws {
        let server = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(method: .get, path: "/v1/me")) { request in
                guard request.headers["Authorization"] == "Bearer new" else { return .status(401) }
                return try .json(Profile(name: "Ada"))
            }
        ])
        let service = HTTPNetworkService(
            transport: ReauthTransport(inner: server, authService: auth, refreshToken: refreshToNew),
            authService: auth)

        let profile: Profile = try await service.request(to: ProfileEndpoint(), via: environment)

        #expect(profile == Profile(name: "Ada"))
        #expect(refreshes.withLock { $0 } == 1)
        #expect(
            await server.recordedRequests.map { $0.headers["Authorization"] }
                == ["Bearer old", "Bearer new"])
    }

    @Test("a second 401 after the refresh reaches the caller as NetworkError.httpStatus")
    func second401BecomesHTTPStatus() async throws {
        let server = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(path: "/v1/me"), response: CannedResponse(string: "expired", statusCode: 401))
        ])
        let service = HTTPNetworkService(
            transport: ReauthTransport(inner: server, authService: auth, refreshToken: refreshToNew),
            authService: auth)

        await #expect {
            let _: Profile = try await service.request(to: ProfileEndpoint(), via: environment)
        } throws: { error in
            guard case NetworkError.httpStatus(let response) = error else { return false }
            return response.statusCode == 401 && response.text == "expired"
        }
        #expect(refreshes.withLock { $0 } == 1)
        #expect(await server.recordedRequests.count == 2)
    }

    @Test("an endpoint that does not require auth never gets a token, even after a 401")
    func publicEndpointNeverGetsAToken() async throws {
        let server = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(path: "/v1/me"), response: .status(401))
        ])
        let service = HTTPNetworkService(
            transport: ReauthTransport(inner: server, authService: auth, refreshToken: refreshToNew),
            authService: auth)

        await #expect(throws: NetworkError.self) {
            let _: Profile = try await service.request(to: ProfileEndpoint(requiresAuth: false), via: environment)
        }
        #expect(refreshes.withLock { $0 } == 0)
        #expect(await server.recordedRequests.map { $0.headers["Authorization"] } == [nil])
    }

    @Test("a failed refresh reaches the caller as NetworkError.transport wrapping ReauthError.refreshFailed")
    func refreshFailureThroughTheService() async throws {
        let server = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(path: "/v1/me"), response: .status(401))
        ])
        let service = HTTPNetworkService(
            transport: ReauthTransport(inner: server, authService: auth) { throw Doubles.RefreshRejected(id: 7) },
            authService: auth)

        await #expect {
            let _: Profile = try await service.request(to: ProfileEndpoint(), via: environment)
        } throws: { error in
            guard case NetworkError.transport(ReauthError.refreshFailed(let underlying)) = error else { return false }
            return underlying as? Doubles.RefreshRejected == Doubles.RefreshRejected(id: 7)
        }
    }

    @Test("Reauth → Retry → transport: a 401 causes exactly one refresh and is never retried, while a 5xx after it is")
    func reauthOutsideRetry() async throws {
        let server = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(path: "/v1/me"), respond: Self.newTokenThenFlaky())
        ])
        let service = HTTPNetworkService(
            transport: ReauthTransport(
                inner: RetryTransport(inner: server, clock: TestClock()),
                authService: auth, refreshToken: refreshToNew),
            authService: auth)

        let profile: Profile = try await service.request(to: ProfileEndpoint(), via: environment)

        #expect(profile == Profile(name: "Ada"))
        #expect(refreshes.withLock { $0 } == 1)
        #expect(
            await server.recordedRequests.map { $0.headers["Authorization"] }
                == ["Bearer old", "Bearer new", "Bearer new"])
    }

    /// 401 for the old token; for the new one, a 503 first and then the profile.
    private static func newTokenThenFlaky() -> @Sendable (HTTPRequest) throws -> CannedResponse {
        let newTokenSends = LockedValue(0)
        return { request in
            guard request.headers["Authorization"] == "Bearer new" else { return .status(401) }
            let send = newTokenSends.withLock { count -> Int in
                count += 1
                return count
            }
            return send == 1 ? .status(503) : try .json(Profile(name: "Ada"))
        }
    }
}
