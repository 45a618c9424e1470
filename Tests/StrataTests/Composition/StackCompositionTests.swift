#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataTesting
import Testing
import TestServer

@Suite("Layers composed in the recommended order")
struct StackCompositionTests {
    let environment = DefaultAPIEnvironment(baseURL: URL(string: "https://api.example.com")!)
    let me = TestEndpoint(path: "/me", requiresAuth: true)
    /// A retry layer that never waits for real.
    func retrying(_ inner: any Transport) -> RetryTransport {
        RetryTransport(inner: inner, clock: TestClock(), random: { 0.5 })
    }

    /// Answers 401 to the old token; for the new token, walks `fresh` in order (the last repeats).
    func tokenServer(fresh: [CannedResponse]) -> CannedRoutesTransport {
        let uses = LockedValue(0)
        return CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(path: "/me")) { request in
                guard request.headers["Authorization"] == "Bearer new" else { return .status(401) }
                let use = uses.withLock { count -> Int in
                    defer { count += 1 }; return count
                }
                return fresh[min(use, fresh.count - 1)]
            }
        ])
    }

    @Test("Reauth → Retry: a 401 causes exactly one refresh and is never retried")
    func reauthOutsideRetry() async throws {
        let origin = tokenServer(fresh: [CannedResponse(string: "{}")])
        let auth = InMemoryAuthService(accessToken: "old")
        let refreshes = LockedValue(0)
        let events = RecordingObserver()
        let stack = ReauthTransport(inner: events.observing(retrying(origin)), authService: auth) {
            refreshes.withLock { $0 += 1 }
            await auth.setAccessToken("new")
        }
        let service = HTTPNetworkService(transport: stack, authService: auth)
        _ = try await service.response(to: me, via: environment)
        #expect(refreshes.withLock { $0 } == 1)
        #expect(events.events(RetryEvent.self).isEmpty)
        #expect(await origin.recordedRequests.map { $0.headers["Authorization"] } == ["Bearer old", "Bearer new"])
    }

    @Test("Reauth → Retry: a 503 after the refresh is retried with the new token")
    func retryAfterRefresh() async throws {
        let origin = tokenServer(fresh: [.status(503), CannedResponse(string: "{}")])
        let auth = InMemoryAuthService(accessToken: "old")
        let refreshes = LockedValue(0)
        let stack = ReauthTransport(inner: retrying(origin), authService: auth) {
            refreshes.withLock { $0 += 1 }
            await auth.setAccessToken("new")
        }
        _ = try await HTTPNetworkService(transport: stack, authService: auth).response(to: me, via: environment)
        #expect(refreshes.withLock { $0 } == 1)
        #expect(
            await origin.recordedRequests.map { $0.headers["Authorization"] }
                == ["Bearer old", "Bearer new", "Bearer new"])
    }

    @Test("a request that triggers a refresh logs start, refresh, resend and response under one identifier")
    func refreshEventSequence() async throws {
        let logger = RecordingLogger()
        let auth = InMemoryAuthService(accessToken: "old")
        let stack = LoggingTransport(
            inner: ReauthTransport(
                inner: LoggingTransport(inner: tokenServer(fresh: [CannedResponse(string: "{}")]), logger: logger),
                authService: auth
            ) { await auth.setAccessToken("new") },
            logger: logger)
        _ = try await HTTPNetworkService(transport: stack, authService: auth).response(to: me, via: environment)

        let summary = logger.entries.map { entry in
            [entry.metadata["event"], entry.metadata["attempt"], entry.metadata["status"], entry.metadata["waiters"]]
                .compactMap { $0 }.joined(separator: " ")
        }
        #expect(
            summary == [
                "request.start 1",
                "request.start 1", "request.response 1 401",
                "reauth.refresh.started 1", "reauth.refresh.succeeded 1 1",
                "reauth.resend.new-token 1",
                "request.start 2", "request.response 2 200",
                "request.response 1 200",
            ])
        #expect(Set(logger.entries.compactMap { $0.metadata["request"] }).count == 1)
        #expect(!logger.text.contains("Bearer old") && !logger.text.contains("Bearer new"))
    }

    @Test("the whole stack over a loopback server: refresh, retry and a revalidated GET")
    func wholeStackOnLoopback() async throws {
        let server = try LoopbackHTTPServer()
        let attempts = LockedValue(0)
        server.route("/profile") { request in
            guard request.header("Authorization") == "Bearer new" else { return .init(status: 401, text: "expired") }
            let attempt = attempts.withLock { count -> Int in
                defer { count += 1 }; return count
            }
            if attempt == 0 { return .init(status: 503, text: "busy") }
            if request.header("If-None-Match") == "\"v1\"" { return .init(status: 304, headers: [("ETag", "\"v1\"")]) }
            return .init(headers: [("ETag", "\"v1\""), ("Content-Type", "application/json")], text: #"{"name":"Ada"}"#)
        }
        let auth = InMemoryAuthService(accessToken: "old")
        let stack = ReauthTransport(
            inner: retrying(ETagTransport(inner: URLSessionTransport(requestTimeout: .seconds(30)))),
            authService: auth
        ) { await auth.setAccessToken("new") }
        let service = HTTPNetworkService(transport: stack, authService: auth)
        let environment = DefaultAPIEnvironment(baseURL: server.baseURL)
        let endpoint = TestEndpoint(path: "/profile", requiresAuth: true)

        let first: Payload = try await service.request(to: endpoint, via: environment)
        let second = try await service.response(to: endpoint, via: environment)
        #expect(first == Payload(name: "Ada"))
        #expect(second.source == .revalidated)
        #expect(second.text == #"{"name":"Ada"}"#)
        // 401 (old token), 503 (retried), 200, then 304 for the conditional GET.
        #expect(server.requests.map { $0.header("If-None-Match") ?? "-" } == ["-", "-", "-", "\"v1\""])
        #expect(server.requestCount == 4)
    }
}
