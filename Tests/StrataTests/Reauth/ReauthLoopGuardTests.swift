#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataTesting
import Testing

private typealias Doubles = ReauthDoubles

@Suite("ReauthTransport: the refresh-loop guard", .timeLimit(.minutes(1)))
struct ReauthLoopGuardTests {
    let auth = InMemoryAuthService(accessToken: "t0")
    let refreshes = LockedValue(0)
    let events = RecordingObserver()
    private let clock = TestClock()

    /// A server that rejects every token, even freshly refreshed ones: the loop the guard stops.
    private func makeTransport(loopGuard: RefreshLoopGuard = RefreshLoopGuard()) -> ReauthTransport {
        let server = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(pathRegex: "/.*"), response: .status(401))
        ])
        return ReauthTransport(inner: server, authService: auth, loopGuard: loopGuard, clock: clock) { [auth, refreshes] in
            let count = refreshes.withLock { count -> Int in
                count += 1
                return count
            }
            await auth.setAccessToken("t\(count)")
        }
    }

    /// Sends a request with the auth service's current token, as HTTPNetworkService would.
    private func sendWithCurrentToken(_ reauth: ReauthTransport) async throws -> HTTPResponse {
        let token = await auth.accessToken() ?? ""
        return try await events.observing(reauth).send(Doubles.request("/me", authorization: "Bearer \(token)"))
    }

    @Test("by default a sixth refresh within 30 seconds fails with refreshLoopDetected instead of refreshing")
    func sixthRefreshInWindowIsRefused() async throws {
        let reauth = makeTransport()
        for _ in 1...5 {
            #expect(try await sendWithCurrentToken(reauth).statusCode == 401)
        }
        #expect(refreshes.withLock { $0 } == 5)

        clock.advance(by: .seconds(29))
        await #expect {
            try await sendWithCurrentToken(reauth)
        } throws: { error in
            guard case ReauthError.refreshLoopDetected(let count, let window) = error else { return false }
            return count == 5 && window == .seconds(30) && "\(error)".contains("5 refreshes within")
        }
        #expect(refreshes.withLock { $0 } == 5)
        #expect(
            events.events(ReauthEvent.self).contains { event in
                if case .refusedByLoopGuard(5, .seconds(30)) = event { return true }
                return false
            })
    }

    @Test("the guard lets refreshing resume once the oldest refresh has left the window")
    func guardResetsAfterTheWindow() async throws {
        let reauth = makeTransport()
        for _ in 1...5 { _ = try await sendWithCurrentToken(reauth) }
        await #expect(throws: ReauthError.self) { try await sendWithCurrentToken(reauth) }

        clock.advance(by: .seconds(30))
        #expect(try await sendWithCurrentToken(reauth).statusCode == 401)
        #expect(refreshes.withLock { $0 } == 6)
    }

    @Test("a custom guard counts its own limit within its own window")
    func customGuard() async throws {
        let reauth = makeTransport(loopGuard: RefreshLoopGuard(maxRefreshes: 2, window: .seconds(10)))
        _ = try await sendWithCurrentToken(reauth)
        clock.advance(by: .seconds(6))
        _ = try await sendWithCurrentToken(reauth)
        await #expect(throws: ReauthError.self) { try await sendWithCurrentToken(reauth) }

        clock.advance(by: .seconds(4)) // The first refresh is now 10 s old; the second, 4 s.
        _ = try await sendWithCurrentToken(reauth)
        await #expect(throws: ReauthError.self) { try await sendWithCurrentToken(reauth) }
        #expect(refreshes.withLock { $0 } == 3)
    }

    @Test("refresh events carry their duration measured on the injected clock")
    func eventDurationsUseTheClock() async throws {
        let server = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(pathRegex: "/.*"), respond: Doubles.acceptingOnly("t1"))
        ])
        let reauth = ReauthTransport(inner: server, authService: auth, clock: clock) { [auth, clock] in
            clock.advance(by: .milliseconds(250))
            await auth.setAccessToken("t1")
        }
        #expect(try await events.observing(reauth).send(Doubles.request("/me", authorization: "Bearer t0")).statusCode == 200)

        let recorded = events.events(ReauthEvent.self)
        #expect(recorded.map(\.name) == ["reauth.refresh.started", "reauth.refresh.succeeded", "reauth.resend.new-token"])
        guard recorded.count == 3, case .succeeded(1, let duration) = recorded[1] else {
            Issue.record("expected started, succeeded, resent; got \(recorded)")
            return
        }
        #expect(duration == .milliseconds(250))
        #expect(recorded[1].description == "token refresh succeeded in 250.00 ms; 1 request waited")
    }
}
