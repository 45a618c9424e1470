#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataResilience
import StrataTesting
import Testing

@Suite("RateLimitTransport holds a group's requests while the server's window is closed", .timeLimit(.minutes(1)))
struct RateLimitTransportTests {
    static let api = URL(string: "https://api.example.com/todos")!
    static let other = URL(string: "https://other.example.com/todos")!
    static let tooMany = CannedResponse(string: "slow down", statusCode: 429, headers: ["Retry-After": "2"])

    private static func request(_ url: URL = api) -> HTTPRequest { HTTPRequest(url: url) }

    /// Yields until `clock` has `sleepers` waiting or `inner` has received more than `sent`
    /// requests: a request the layer failed to hold ends the wait (and fails the test) instead
    /// of hanging it, as `waitForSleepers` would.
    private static func untilHeld(_ sleepers: Int, on clock: TestClock, orSent sent: Int, to inner: ClosureTransport) async {
        while clock.sleepers < sleepers, await inner.recordedRequests.count <= sent { await Task.yield() }
    }

    @Test("a 429 with Retry-After: 2 is returned unchanged and holds the next request until the clock passes 2 s")
    func holdsUntilReopened() async throws {
        let inner = ClosureTransport.sequence([.succeeding(Self.tooMany), .succeeding(.status(200))])
        let clock = TestClock(sleepsAdvanceTime: false)
        let limited = RateLimitTransport(inner: inner, clock: clock)
        let first = try await limited.send(Self.request())
        #expect(first.statusCode == 429)
        #expect(first.headers["Retry-After"] == "2")
        #expect(first.text == "slow down")

        let held = Task { try await limited.send(Self.request()) }
        await Self.untilHeld(1, on: clock, orSent: 1, to: inner)
        #expect(await inner.recordedRequests.count == 1)
        clock.advance(by: .milliseconds(1_999))
        #expect(clock.sleepers == 1)
        #expect(await inner.recordedRequests.count == 1)
        clock.advance(by: .milliseconds(1))
        #expect(try await held.value.statusCode == 200)
        #expect(await inner.recordedRequests.count == 2)
        #expect(clock.sleeps == [.seconds(2)])
    }

    @Test("groups are independent: a closed window of one origin does not hold another")
    func groupsIndependent() async throws {
        let inner = ClosureTransport { request in
            request.url.host == "api.example.com" && request.headers["X-First"] != nil
                ? Self.tooMany.httpResponse(for: nil) : HTTPResponse(statusCode: 200)
        }
        let clock = TestClock()
        let limited = RateLimitTransport(inner: inner, clock: clock)
        _ = try await limited.send(HTTPRequest(url: Self.api, headers: ["X-First": "1"]))
        #expect(try await limited.send(Self.request(Self.other)).statusCode == 200)
        #expect(clock.sleeps.isEmpty)
        #expect(try await limited.send(Self.request(URL(string: "https://api.example.com:443/other")!)).statusCode == 200)
        #expect(clock.sleeps == [.seconds(2)])
    }

    @Test("a custom partition groups by its key: the endpoint partition holds only the path that got the 429")
    func endpointPartition() async throws {
        let inner = ClosureTransport.sequence([.succeeding(Self.tooMany), .succeeding(.status(200))])
        let clock = TestClock()
        let limited = RateLimitTransport(inner: inner, partition: .endpoint, clock: clock)
        _ = try await limited.send(Self.request())
        _ = try await limited.send(Self.request(URL(string: "https://api.example.com/users")!))
        #expect(clock.sleeps.isEmpty)
    }

    @Test("a wait beyond maxWait fails at once with RateLimitedError, unsent, saying until when and what to do")
    func beyondMaxWait() async throws {
        let inner = ClosureTransport.sequence([.succeeding(.status(429, headers: ["Retry-After": "45"])), .succeeding(.status(200))])
        let clock = TestClock()
        let limited = RateLimitTransport(inner: inner, clock: clock)
        _ = try await limited.send(Self.request())
        let error = await #expect(throws: RateLimitedError.self) { try await limited.send(Self.request()) }
        #expect(await inner.recordedRequests.count == 1)
        #expect(clock.sleeps.isEmpty)
        #expect(error?.group == "https://api.example.com:443")
        #expect(error?.reopensIn == .seconds(45))
        #expect(error?.source == .retryAfter)
        #expect(error?.limit == .maxWait(.seconds(30)))
        #expect(
            error?.description
                == "GET https://api.example.com/todos: not sent, https://api.example.com:443 is rate limited by the server "
                + "(Retry-After) for 45 s more, longer than a request may wait (RateLimitPolicy.maxWait 30 s). "
                + "Try again in 45 s, or raise maxWait (RateLimitTransport)")
        #expect(error?.localizedDescription == error?.description)
        let retryAt = try #require(error?.retryAt)
        #expect(abs(retryAt.timeIntervalSinceNow - 45) < 5)
    }

    @Test("a wait that would not end before the request's deadline fails at once with RateLimitedError, unsent")
    func beyondDeadline() async throws {
        let inner = ClosureTransport.sequence([.succeeding(.status(503, headers: ["Retry-After": "10"])), .succeeding(.status(200))])
        let clock = TestClock()
        let limited = RateLimitTransport(inner: inner, clock: clock)
        _ = try await limited.send(Self.request())
        let error = await #expect(throws: RateLimitedError.self) {
            try await RequestDeadline.withTimeout(.seconds(5)) { try await limited.send(Self.request()) }
        }
        guard case .deadline(let timeLeft) = error?.limit else {
            Issue.record("expected a deadline refusal, got \(String(describing: error))")
            return
        }
        #expect(timeLeft <= .seconds(5))
        #expect(error?.description.contains("the request's deadline passes in") == true)
        #expect(await inner.recordedRequests.count == 1)
        #expect(clock.sleeps.isEmpty)
        // With time enough, the same wait is waited.
        let response = try await RequestDeadline.withTimeout(.seconds(60)) { try await limited.send(Self.request()) }
        #expect(response.statusCode == 200)
        #expect(clock.sleeps == [.seconds(10)])
    }

    @Test("a hostile Retry-After of a year holds for maxHold only")
    func cappedByMaxHold() async throws {
        let inner = ClosureTransport.sequence([.succeeding(.status(429, headers: ["Retry-After": "31536000"])), .succeeding(.status(200))])
        let clock = TestClock()
        let events = RecordingObserver()
        let limited = events.observing(RateLimitTransport(inner: inner, policy: RateLimitPolicy(maxWait: .seconds(120)), clock: clock))
        _ = try await limited.send(Self.request())
        #expect(try await limited.send(Self.request()).statusCode == 200)
        #expect(clock.sleeps == [.seconds(60)])
        #expect(
            events.events(RateLimitEvent.self).first
                == .windowClosed(
                    group: "https://api.example.com:443", duration: .seconds(60), requested: .seconds(31_536_000),
                    source: .retryAfter, statusCode: 429))
    }

    @Test("cancelling a held request ends it with CancellationError at once, unsent")
    func cancelledWhileHeld() async throws {
        let inner = ClosureTransport.sequence([.succeeding(Self.tooMany), .succeeding(.status(200))])
        let clock = TestClock(sleepsAdvanceTime: false)
        let limited = RateLimitTransport(inner: inner, clock: clock)
        _ = try await limited.send(Self.request())
        let held = Task { try await limited.send(Self.request()) }
        await Self.untilHeld(1, on: clock, orSent: 1, to: inner)
        held.cancel()
        await #expect(throws: CancellationError.self) { try await held.value }
        #expect(clock.sleepers == 0)
        #expect(await inner.recordedRequests.count == 1)
    }

    @Test("RateLimit: \"x\";r=0;t=5 on a 200 closes the window too")
    func structuredFieldOnSuccess() async throws {
        let exhausted = CannedResponse(string: "ok", headers: ["RateLimit": #""x";r=0;t=5"#, "RateLimit-Policy": #""x";q=10;w=60"#])
        let inner = ClosureTransport.sequence([.succeeding(exhausted), .succeeding(.status(200))])
        let clock = TestClock()
        let limited = RateLimitTransport(inner: inner, clock: clock)
        #expect(try await limited.send(Self.request()).statusCode == 200)
        _ = try await limited.send(Self.request())
        #expect(clock.sleeps == [.seconds(5)])
    }

    @Test("a window that reopened holds nothing")
    func reopenedWindow() async throws {
        let inner = ClosureTransport.sequence([.succeeding(Self.tooMany), .succeeding(.status(200))])
        let clock = TestClock()
        let limited = RateLimitTransport(inner: inner, clock: clock)
        _ = try await limited.send(Self.request())
        clock.advance(by: .seconds(2))
        #expect(try await limited.send(Self.request()).statusCode == 200)
        #expect(clock.sleeps.isEmpty)
    }

    @Test("a held request asks again when it wakes: a response that closed the window further meanwhile holds it longer")
    func recheckAfterWait() async throws {
        let (gate, open) = AsyncStream<Void>.makeStream()
        let inner = ClosureTransport { request in
            switch request.headers["X-Answer"] {
            case "slow":
                for await _ in gate { break }
                return HTTPResponse(statusCode: 429, headers: ["Retry-After": "10"])
            case "first": return Self.tooMany.httpResponse(for: nil)
            default: return HTTPResponse(statusCode: 200)
            }
        }
        let clock = TestClock(sleepsAdvanceTime: false)
        let limited = RateLimitTransport(inner: inner, clock: clock)
        // In flight before the window closes; it answers later.
        let slow = Task { try await limited.send(HTTPRequest(url: Self.api, headers: ["X-Answer": "slow"])) }
        while await inner.recordedRequests.isEmpty { await Task.yield() }
        _ = try await limited.send(HTTPRequest(url: Self.api, headers: ["X-Answer": "first"]))
        let held = Task { try await limited.send(Self.request()) }
        await Self.untilHeld(1, on: clock, orSent: 2, to: inner)
        open.yield()
        #expect(try await slow.value.statusCode == 429)
        clock.advance(by: .seconds(2))
        await Self.untilHeld(1, on: clock, orSent: 2, to: inner)
        #expect(await inner.recordedRequests.count == 2)
        clock.advance(by: .seconds(8))
        #expect(try await held.value.statusCode == 200)
        #expect(clock.sleeps == [.seconds(2), .seconds(8)])
    }

    @Test("a streamed 429 reaches consume unchanged and closes the window for the next stream")
    func streams() async throws {
        let inner = ClosureTransport.sequence([.succeeding(Self.tooMany), .succeeding(CannedResponse(string: "ok"))])
        let clock = TestClock()
        let limited = RateLimitTransport(inner: inner, clock: clock)
        let first = try await limited.stream(Self.request()) { head, body in
            (head.statusCode, head.headers["Retry-After"], try await body.collect(upTo: 100))
        }
        #expect(first.0 == 429)
        #expect(first.1 == "2")
        #expect(first.2 == Data("slow down".utf8))
        #expect(clock.sleeps.isEmpty)
        let second = try await limited.stream(Self.request()) { head, _ in head.statusCode }
        #expect(second == 200)
        #expect(clock.sleeps == [.seconds(2)])
    }

    @Test("the client limit spaces requests by itself, before any server complains")
    func clientLimit() async throws {
        let inner = ClosureTransport.succeeding(.status(200))
        let clock = TestClock()
        let limited = RateLimitTransport(
            inner: inner, policy: RateLimitPolicy(clientLimit: .init(requestsPerSecond: 4, burst: 2)), clock: clock)
        for _ in 0..<4 { _ = try await limited.send(Self.request()) }
        #expect(clock.sleeps == [.milliseconds(250), .milliseconds(250)])
        #expect(await inner.recordedRequests.count == 4)
    }

    @Test("events: the window closing (how long, which field), each held request (how long), each refusal")
    func events() async throws {
        let inner = ClosureTransport.sequence([
            .succeeding(Self.tooMany), .succeeding(.status(200)),
            .succeeding(.status(200, headers: ["X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "40"])),
        ])
        let clock = TestClock()
        let events = RecordingObserver()
        let limited = events.observing(RateLimitTransport(inner: inner, clock: clock))
        _ = try await limited.send(Self.request())
        _ = try await limited.send(Self.request())
        _ = try await limited.send(Self.request())
        await #expect(throws: RateLimitedError.self) { try await limited.send(Self.request()) }
        let group = "https://api.example.com:443"
        #expect(
            events.events(RateLimitEvent.self) == [
                .windowClosed(group: group, duration: .seconds(2), requested: .seconds(2), source: .retryAfter, statusCode: 429),
                .held(group: group, duration: .seconds(2), source: .retryAfter, method: .get, url: Self.api),
                .windowClosed(group: group, duration: .seconds(40), requested: .seconds(40), source: .xRateLimitReset, statusCode: 200),
                .rejected(group: group, reopensIn: .seconds(40), source: .xRateLimitReset, method: .get, url: Self.api),
            ])
        #expect(
            events.names.filter { $0.hasPrefix("ratelimit.") } == [
                "ratelimit.closed", "ratelimit.held", "ratelimit.closed", "ratelimit.rejected",
            ])
        let messages = events.events(RateLimitEvent.self).map(\.description)
        #expect(messages[0] == "rate limit of https://api.example.com:443 closed for 2 s by Retry-After on a 429")
        #expect(messages[1] == "GET https://api.example.com/todos held 2 s by the rate limit of https://api.example.com:443 (Retry-After)")
        #expect(
            messages[3]
                == "GET https://api.example.com/todos not sent: the rate limit of https://api.example.com:443 (X-RateLimit-Reset) reopens in 40 s"
        )
    }

    @Test("a RetryTransport above retries the 429 once, its wait meeting the hold: one retry, no second 429")
    func underRetry() async throws {
        let inner = ClosureTransport.sequence([.succeeding(Self.tooMany), .succeeding(.status(200))])
        let clock = TestClock()
        let stack = TransportStack(.retry(policy: RetryPolicy(budget: nil), clock: clock), .rateLimit(clock: clock), terminal: inner)
        #expect(try await stack.send(Self.request()).statusCode == 200)
        #expect(await inner.recordedRequests.count == 2)
        // The retry waited the Retry-After; the window had reopened by then.
        #expect(clock.sleeps == [.seconds(2)])
    }
}
