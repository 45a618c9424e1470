#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing

private typealias Doubles = ReauthDoubles

@Suite("ReauthTransport: one shared refresh, resend once", .timeLimit(.minutes(1)))
struct ReauthSingleFlightTests {
    let auth = InMemoryAuthService(accessToken: "old")
    let refreshes = LockedValue(0)
    let events = RecordingObserver()

    @Test("100 concurrent requests that all get 401 share exactly one refresh, and each is sent exactly twice")
    func hundredConcurrent401sShareOneRefresh() async throws {
        let server = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(pathRegex: "/items/[0-9]+"), respond: Doubles.acceptingOnly("new"))
        ])
        let gate = Doubles.Gate()
        let reauth = ReauthTransport(inner: server, authService: auth) { [auth, refreshes] in
            refreshes.withLock { $0 += 1 }
            await gate.wait()
            await auth.setAccessToken("new")
        }

        try await withThrowingTaskGroup(of: Int.self) { group in
            for item in 0..<100 {
                group.addTask {
                    try await events.observing(reauth).send(Doubles.request("/items/\(item)", authorization: "Bearer old")).statusCode
                }
            }
            // Hold the refresh until every request has joined it, so all 100 are truly concurrent.
            await Doubles.waitUntil { reauth.waitingRequestCount == 100 }
            gate.open()
            let statuses = try await group.reduce(into: []) { $0.append($1) }
            #expect(statuses == Array(repeating: 200, count: 100))
        }

        #expect(refreshes.withLock { $0 } == 1)
        let sends = Dictionary(grouping: await server.recordedRequests) { $0.url.path }
        #expect(sends.count == 100)
        #expect(
            sends.values.allSatisfy { requests in
                requests.compactMap { $0.headers["Authorization"] } == ["Bearer old", "Bearer new"]
            })
        #expect(succeededWaiters == [100])
    }

    @Test("a 401 that arrives after the refresh already replaced its token is resent with the new token, without a second refresh")
    func late401IsResentWithoutRefreshing() async throws {
        let slowArrived = Doubles.Gate()
        let releaseSlow = Doubles.Gate()
        let sends = LockedValue<[String]>([])
        let server = ClosureTransport { request in
            let authorization = request.headers["Authorization"] ?? ""
            let path = request.url.path
            sends.withLock { $0.append("\(path) \(authorization)") }
            if path == "/slow", authorization == "Bearer old" {
                slowArrived.open()
                await releaseSlow.wait()
            }
            return HTTPResponse(statusCode: authorization == "Bearer new" ? 200 : 401)
        }
        let reauth = ReauthTransport(inner: server, authService: auth) { [auth, refreshes] in
            refreshes.withLock { $0 += 1 }
            await auth.setAccessToken("new")
        }

        // The slow request leaves with the old token and is held at the server.
        let slow = Task { try await events.observing(reauth).send(Doubles.request("/slow", authorization: "Bearer old")) }
        await slowArrived.wait()
        // Meanwhile a fast request gets its 401, and the refresh completes.
        let fast = try await events.observing(reauth).send(Doubles.request("/fast", authorization: "Bearer old"))
        #expect(fast.statusCode == 200)
        #expect(refreshes.withLock { $0 } == 1)
        // Now the slow request's 401 for the old token arrives.
        releaseSlow.open()
        #expect(try await slow.value.statusCode == 200)

        #expect(refreshes.withLock { $0 } == 1)
        #expect(sends.withLock { $0 }.filter { $0.hasPrefix("/slow") } == ["/slow Bearer old", "/slow Bearer new"])
        #expect(
            events.events(ReauthEvent.self).contains { event in
                if case .resentWithCurrentToken(let url) = event { return url?.path == "/slow" }
                return false
            })
    }

    @Test("a request built with a token that a refresh has since replaced gets its 401 resent with the current token, without refreshing")
    func requestCarryingReplacedTokenIsResent() async throws {
        let server = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(pathRegex: "/.*"), respond: Doubles.acceptingOnly("new"))
        ])
        let reauth = ReauthTransport(inner: server, authService: auth) { [auth, refreshes] in
            refreshes.withLock { $0 += 1 }
            await auth.setAccessToken("new")
        }
        _ = try await events.observing(reauth).send(Doubles.request("/first", authorization: "Bearer old"))
        let late = try await events.observing(reauth).send(Doubles.request("/second", authorization: "Bearer old"))

        #expect(late.statusCode == 200)
        #expect(refreshes.withLock { $0 } == 1)
        let second = await server.recordedRequests.filter { $0.url.path == "/second" }
        #expect(second.map { $0.headers["Authorization"] } == ["Bearer old", "Bearer new"])
    }

    @Test("a 401 for a token the app replaced itself (a new sign-in) is resent with the current token, without refreshing")
    func tokenReplacedOutsideARefreshIsResent() async throws {
        let server = ClosureTransport { [auth] request in
            let authorization = request.headers["Authorization"]
            if authorization == "Bearer old" { await auth.setAccessToken("signed-in-again") }
            return HTTPResponse(statusCode: authorization == "Bearer signed-in-again" ? 200 : 401)
        }
        let reauth = ReauthTransport(inner: server, authService: auth) { [refreshes] in
            refreshes.withLock { $0 += 1 }
        }

        #expect(try await events.observing(reauth).send(Doubles.request("/me", authorization: "Bearer old")).statusCode == 200)
        #expect(refreshes.withLock { $0 } == 0)
        #expect(events.events(ReauthEvent.self).count == 1)
    }

    @Test("a refresh that finished between a 401 and its waiting is not repeated for the token it replaced")
    func completedRefreshIsNotRepeatedForItsToken() async throws {
        let shared = SingleFlightRefresh(
            authService: auth,
            refreshToken: { [auth, refreshes] in
                refreshes.withLock { $0 += 1 }
                await auth.setAccessToken("new")
            }, loopGuard: RefreshLoopGuard(), elapsed: { .zero })

        #expect(try await shared.token(replacing: "old") == .refreshed("new"))
        #expect(try await shared.token(replacing: "old") == .alreadyReplaced)
        #expect(refreshes.withLock { $0 } == 1)
    }

    @Test("when the refresh throws, every waiting request gets that same error as refreshFailed, and the refresh ran once")
    func refreshFailureFansOut() async throws {
        let server = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(pathRegex: "/items/[0-9]+"), respond: Doubles.acceptingOnly("new"))
        ])
        let gate = Doubles.Gate()
        let reauth = ReauthTransport(inner: server, authService: auth) { [refreshes] in
            refreshes.withLock { $0 += 1 }
            await gate.wait()
            throw Doubles.RefreshRejected(id: 42)
        }

        let failures = await withTaskGroup(of: (any Error)?.self) { group in
            for item in 0..<10 {
                group.addTask {
                    do {
                        _ = try await events.observing(reauth).send(Doubles.request("/items/\(item)", authorization: "Bearer old"))
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            await Doubles.waitUntil { reauth.waitingRequestCount == 10 }
            gate.open()
            return await group.reduce(into: [(any Error)?]()) { $0.append($1) }
        }

        #expect(failures.count == 10)
        #expect(
            failures.allSatisfy { error in
                guard case ReauthError.refreshFailed(let underlying)? = error else { return false }
                return underlying as? Doubles.RefreshRejected == Doubles.RefreshRejected(id: 42)
            })
        #expect(refreshes.withLock { $0 } == 1)
        #expect(await server.recordedRequests.count == 10) // No request was resent.
        #expect(
            events.events(ReauthEvent.self).contains { event in
                if case .failed(.refreshFailed, let waiters, _) = event { return waiters == 10 }
                return false
            })
    }

    @Test("after a failed refresh, the next 401 tries to refresh again")
    func failureIsNotCached() async throws {
        let server = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(pathRegex: "/.*"), respond: Doubles.acceptingOnly("new"))
        ])
        let reauth = ReauthTransport(inner: server, authService: auth) { [auth, refreshes] in
            let attempt = refreshes.withLock { count -> Int in
                count += 1
                return count
            }
            if attempt == 1 { throw Doubles.RefreshRejected(id: 1) }
            await auth.setAccessToken("new")
        }

        await #expect(throws: ReauthError.self) {
            try await events.observing(reauth).send(Doubles.request("/a", authorization: "Bearer old"))
        }
        let retried = try await events.observing(reauth).send(Doubles.request("/b", authorization: "Bearer old"))
        #expect(retried.statusCode == 200)
        #expect(refreshes.withLock { $0 } == 2)
    }

    @Test("cancelling one waiting caller ends its wait at once, while the refresh and the other waiter carry on")
    func cancellingOneWaiterLeavesTheRefreshRunning() async throws {
        let server = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(pathRegex: "/.*"), respond: Doubles.acceptingOnly("new"))
        ])
        let gate = Doubles.Gate()
        let refreshWasCancelled = LockedValue<Bool?>(nil)
        let reauth = ReauthTransport(inner: server, authService: auth) { [auth, refreshes] in
            refreshes.withLock { $0 += 1 }
            await gate.wait()
            refreshWasCancelled.withLock { $0 = Task.isCancelled }
            await auth.setAccessToken("new")
        }

        // The caller that starts the refresh is the one that gets cancelled.
        let starterFinished = LockedValue(false)
        let starter = Task {
            defer { starterFinished.withLock { $0 = true } }
            return try await events.observing(reauth).send(Doubles.request("/starter", authorization: "Bearer old"))
        }
        await Doubles.waitUntil { reauth.waitingRequestCount == 1 }
        let other = Task { try await events.observing(reauth).send(Doubles.request("/other", authorization: "Bearer old")) }
        await Doubles.waitUntil { reauth.waitingRequestCount == 2 }

        starter.cancel()
        // The refresh is still held at the gate, so the starter finishes only if cancellation
        // ends its wait by itself.
        await Doubles.waitUntil { starterFinished.withLock { $0 } }
        #expect(reauth.waitingRequestCount == 1)
        #expect(succeededWaiters.isEmpty)

        gate.open()
        await #expect(throws: CancellationError.self) { try await starter.value }
        #expect(try await other.value.statusCode == 200)
        #expect(refreshes.withLock { $0 } == 1)
        #expect(refreshWasCancelled.withLock { $0 } == false)
        #expect(await auth.accessToken() == "new")
        #expect(succeededWaiters == [2])
        #expect(await server.recordedRequests.filter { $0.url.path == "/starter" }.count == 1)
    }

    @Test("a caller cancelled before it could join does not start a refresh")
    func callerCancelledBeforeJoiningStartsNothing() async throws {
        let entered = Doubles.Gate()
        let release = Doubles.Gate()
        let server = ClosureTransport { request in
            entered.open()
            await release.wait()
            return HTTPResponse(statusCode: 401)
        }
        let reauth = ReauthTransport(inner: server, authService: auth) { [refreshes] in
            refreshes.withLock { $0 += 1 }
        }
        let caller = Task { try await events.observing(reauth).send(Doubles.request("/a", authorization: "Bearer old")) }
        await entered.wait()
        caller.cancel()
        release.open()

        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(refreshes.withLock { $0 } == 0)
    }

    private var succeededWaiters: [Int] {
        events.events(ReauthEvent.self).compactMap { event in
            if case .succeeded(let waiters, _) = event { return waiters }
            return nil
        }
    }
}
