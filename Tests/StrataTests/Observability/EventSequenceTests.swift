#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataTesting
import Testing

@Suite("Event sequences across layers")
struct EventSequenceTests {
    let url = URL(string: "https://api.example.com/items")!

    @Test("a request retried twice then successful logs each attempt under one identifier")
    func retriedTwice() async throws {
        let logger = RecordingLogger()
        let flaky = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(path: "/items"), responses: [.status(503), .status(502), CannedResponse(string: "ok")])
        ])
        let stack = LoggingTransport(
            inner: RetryTransport(
                inner: LoggingTransport(inner: flaky, logger: logger),
                policy: RetryPolicy(baseDelay: .milliseconds(100), jitter: .none), clock: TestClock()),
            logger: logger)
        let response = try await stack.send(URLRequest(url: url))
        #expect(response.statusCode == 200)

        let summary = logger.entries.map { entry in
            [entry.metadata["event"], entry.metadata["attempt"], entry.metadata["status"], entry.metadata["retry"]]
                .compactMap { $0 }.joined(separator: " ")
        }
        #expect(
            summary == [
                "request.start 1", // outer: the logical request
                "request.start 1", "request.response 1 503",
                "retry.scheduled 1 1", // attempt 1 failed: its retry is reported under it
                "request.start 2", "request.response 2 502",
                "retry.scheduled 2 2",
                "request.start 3", "request.response 3 200",
                "request.response 1 200", // outer: the final outcome
            ])
        #expect(Set(logger.entries.compactMap { $0.metadata["request"] }).count == 1)
        #expect(logger.entries.filter { $0.metadata["event"] == "retry.scheduled" }.map { $0.metadata["delay_s"] } == ["0.100", "0.200"])
    }

    @Test("two logical requests get different identifiers")
    func distinctIdentifiers() async throws {
        let logger = RecordingLogger()
        let stack = LoggingTransport(inner: CannedResponseTransport(string: ""), logger: logger)
        _ = try await stack.send(URLRequest(url: url))
        _ = try await stack.send(URLRequest(url: url))
        #expect(Set(logger.entries.compactMap { $0.metadata["request"] }).count == 2)
    }

    @Test("a LoggingTransport below RetryTransport logs every attempt under one identifier")
    func loggingBelowRetry() async throws {
        let logger = RecordingLogger()
        let flaky = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(path: "/items"), responses: [.status(503), .status(503), CannedResponse(string: "ok")])
        ])
        let stack = RetryTransport(
            inner: LoggingTransport(inner: flaky, logger: logger),
            clock: TestClock())
        _ = try await stack.send(URLRequest(url: url))
        #expect(logger.entries.filter { $0.metadata["event"] == "request.start" }.map { $0.metadata["attempt"] } == ["1", "2", "3"])
        #expect(Set(logger.entries.compactMap { $0.metadata["request"] }).count == 1)
    }

    @Test("attempt numbers keep rising across layers: a retry, then a resend after a refresh")
    func attemptsAcrossLayers() async throws {
        let logger = RecordingLogger()
        let auth = InMemoryAuthService(accessToken: "old")
        let origin = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(path: "/items")) { request in
                request.headers["Authorization"] == "Bearer new" ? CannedResponse(string: "ok") : .status(401)
            }
        ])
        let failedOnce = LockedValue(false)
        let flakyOnce = ClosureTransport { request in // 503 once, then the origin answers
            let first = failedOnce.withLock { done in
                defer { done = true }; return !done
            }
            return first ? HTTPResponse(statusCode: 503) : try await origin.send(request)
        }
        let stack = ReauthTransport(
            inner: RetryTransport(
                inner: LoggingTransport(inner: flakyOnce, logger: logger),
                clock: TestClock()),
            authService: auth
        ) { await auth.setAccessToken("new") }
        var request = URLRequest(url: url)
        request.setValue("Bearer old", forHTTPHeaderField: "Authorization")
        _ = try await stack.send(request)
        // 503 (attempt 1), retried: 401 (attempt 2), refreshed and resent: 200 (attempt 3).
        let responses = logger.entries.filter { $0.metadata["event"] == "request.response" }
        #expect(responses.map { "\($0.metadata["attempt"] ?? "") \($0.metadata["status"] ?? "")" } == ["1 503", "2 401", "3 200"])
        #expect(Set(logger.entries.compactMap { $0.metadata["request"] }).count == 1)
    }

    @Test("requests the token refresh sends are not logged as part of the request that triggered it")
    func refreshIsItsOwnRequest() async throws {
        let logger = RecordingLogger()
        let auth = InMemoryAuthService(accessToken: "old")
        let tokenEndpoint = LoggingTransport(inner: CannedResponseTransport(string: "new"), logger: logger)
        let origin = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(path: "/items")) { request in
                request.headers["Authorization"] == "Bearer new" ? CannedResponse(string: "ok") : .status(401)
            }
        ])
        let stack = LoggingTransport(
            inner: ReauthTransport(inner: origin, authService: auth) {
                let token = try await tokenEndpoint.send(URLRequest(url: URL(string: "https://auth.example.com/token")!))
                await auth.setAccessToken(token.text)
            },
            logger: logger)
        var request = URLRequest(url: url)
        request.setValue("Bearer old", forHTTPHeaderField: "Authorization")
        _ = try await stack.send(request)
        let ids = { (host: String) in
            Set(
                logger.entries.filter { $0.metadata["event"] == "request.start" && ($0.metadata["url"] ?? "").contains(host) }
                    .compactMap { $0.metadata["request"] })
        }
        #expect(ids("api.example.com").count == 1)
        #expect(ids("auth.example.com").count == 1)
        #expect(ids("api.example.com").isDisjoint(with: ids("auth.example.com")))
    }
}
