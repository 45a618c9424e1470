#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataTesting
import Testing
import TestSupport

@Suite("RetryTransport against canned transports")
struct RetryTransportTests {
    let todos = RequestPattern(path: "/todos")

    /// The transport under test on a test clock, observed by `events` when given.
    private func transport(
        _ inner: any Transport, policy: RetryPolicy = RetryPolicy(budget: nil),
        random: RetryFixtures.ScriptedRandom = RetryFixtures.ScriptedRandom([]),
        events: RecordingObserver? = nil
    ) -> any Transport {
        let retrying = RetryFixtures.retrying(inner, policy: policy, random: random)
        return events?.observing(retrying) ?? retrying
    }

    @Test("a 503 then a 200 returns the 200 after one retry")
    func retriesUntilSuccess() async throws {
        let inner = CannedRoutesTransport(routes: [
            CannedRoute(pattern: todos, responses: [.status(503), CannedResponse(string: "[]")])
        ])
        let response = try await transport(inner, random: .init([0.5])).send(RetryFixtures.request())
        #expect(response.statusCode == 200)
        #expect(await inner.recordedRequests.count == 2)
    }

    @Test("maxRetries: 3 means at most 4 sends, and the last response is returned as is")
    func lastResponseReturned() async throws {
        let inner = CannedRoutesTransport(routes: [
            CannedRoute(
                pattern: todos,
                responses: [
                    CannedResponse(string: "first", statusCode: 503), CannedResponse(string: "second", statusCode: 502),
                    CannedResponse(string: "third", statusCode: 500), CannedResponse(string: "fourth", statusCode: 503),
                    CannedResponse(string: "never sent"),
                ])
        ])
        let response = try await transport(
            inner, policy: RetryPolicy(maxRetries: 3, budget: nil),
            random: .init([0.5, 0.5, 0.5])
        ).send(RetryFixtures.request())
        #expect(await inner.recordedRequests.count == 4)
        #expect(response.statusCode == 503)
        #expect(response.text == "fourth")
    }

    @Test("behind HTTPNetworkService, the last 503 becomes NetworkError.httpStatus after 4 sends")
    func serviceMapsLastResponse() async throws {
        struct Todos: EndpointProtocol {
            var path: String { "/todos" }
            var method: HTTPMethod { .get }
        }
        let inner = CannedRoutesTransport(routes: [CannedRoute(pattern: todos, response: .status(503))])
        let service = HTTPNetworkService(transport: transport(inner, random: .init([0.5, 0.5, 0.5])))
        let error = await #expect(throws: NetworkError.self) {
            try await service.response(to: Todos(), via: DefaultAPIEnvironment(baseURL: RetryFixtures.baseURL))
        }
        guard case .httpStatus(let response) = error else {
            Issue.record("expected .httpStatus, got \(String(describing: error))")
            return
        }
        #expect(response.statusCode == 503)
        #expect(await inner.recordedRequests.count == 4)
        // Full jitter drew 0.5 each time: 0.25 + 0.5 + 1 s of waiting.
        #expect(response.retrySummary == RetrySummary(attempts: 4, elapsed: .milliseconds(1_750), stopReason: .retriesExhausted))
        #expect(
            error?.description == "The server answered 503 for https://api.example.com/todos after 4 attempts in 1.75 s (no retries left).")
    }

    @Test("when retries run out on an error, the error says how many attempts were made, how long they took and why it stopped")
    func exhaustedErrorSaysAttemptsAndTime() async throws {
        let inner = CannedRoutesTransport(routes: [CannedRoute(pattern: todos, error: TransportError(.connectionLost))])
        let retrying = transport(inner, policy: RetryPolicy(maxRetries: 2, baseDelay: .milliseconds(500), jitter: .none, budget: nil))
        let error = await #expect(throws: TransportError.self) { try await retrying.send(RetryFixtures.request()) }
        #expect(error?.retrySummary == RetrySummary(attempts: 3, elapsed: .milliseconds(1_500), stopReason: .retriesExhausted))
        #expect(error?.description.hasSuffix("connection lost after 3 attempts in 1.5 s (no retries left)") == true)
    }

    @Test("a request sent once carries no summary, and a budget that runs dry says so")
    func summaryOnlyAfterRetries() async throws {
        let once = CannedRoutesTransport(routes: [CannedRoute(pattern: todos, response: .status(404))])
        #expect(try await transport(once).send(RetryFixtures.request()).retrySummary == nil)
        let failing = CannedRoutesTransport(routes: [CannedRoute(pattern: todos, response: .status(503))])
        let stingy = transport(failing, policy: RetryPolicy(jitter: .none, budget: RetryBudget(maxTokens: 5, retryCost: 5)))
        let response = try await stingy.send(RetryFixtures.request())
        #expect(response.retrySummary?.attempts == 2)
        #expect(response.retrySummary?.stopReason == .budgetExhausted)
    }

    @Test("maxRetries: 0 sends once")
    func noRetries() async throws {
        let inner = CannedRoutesTransport(routes: [CannedRoute(pattern: todos, response: .status(503))])
        _ = try await transport(inner, policy: RetryPolicy(maxRetries: 0, budget: nil)).send(RetryFixtures.request())
        #expect(await inner.recordedRequests.count == 1)
    }

    @Test("when retries run out on a transient error, the last error is thrown")
    func lastErrorThrown() async throws {
        let inner = CannedRoutesTransport(routes: [CannedRoute(pattern: todos, error: TransportError(.timedOut, message: "after 5 s"))])
        let retrying = transport(inner, policy: RetryPolicy(maxRetries: 2, budget: nil), random: .init([0.5, 0.5]))
        let error = await #expect(throws: TransportError.self) { try await retrying.send(RetryFixtures.request()) }
        #expect(error?.kind == .timedOut)
        #expect(error?.message == "after 5 s")
        #expect(await inner.recordedRequests.count == 3)
    }

    @Test("non-transient errors are thrown after one send", arguments: [TransportError.Kind.tls, .invalidRequest, .invalidResponse])
    func nonTransientErrors(kind: TransportError.Kind) async throws {
        let inner = CannedRoutesTransport(routes: [CannedRoute(pattern: todos, error: TransportError(kind))])
        await #expect(throws: TransportError.self) { try await transport(inner).send(RetryFixtures.request()) }
        #expect(await inner.recordedRequests.count == 1)
    }

    @Test("a 401 is returned after one send, so a ReauthTransport outside sees it exactly once")
    func unauthorizedNotRetried() async throws {
        let inner = CannedRoutesTransport(routes: [
            CannedRoute(pattern: todos, response: .status(401, headers: ["WWW-Authenticate": "Bearer"]))
        ])
        let events = RecordingObserver()
        let response = try await transport(inner, events: events).send(RetryFixtures.request())
        #expect(response.statusCode == 401)
        #expect(await inner.recordedRequests.count == 1)
        #expect(events.events(RetryEvent.self).isEmpty)
    }

    @Test("a ReauthTransport outside that resends once after a 401 causes exactly two sends, not a retry storm")
    func composesWithReauthOutside() async throws {
        let inner = CannedRoutesTransport(routes: [
            CannedRoute(pattern: todos) { request in
                request.headers["Authorization"] == "Bearer new" ? .status(200) : .status(401)
            }
        ])
        let auth = InMemoryAuthService(accessToken: "old")
        let reauth = ReauthTransport(inner: transport(inner), authService: auth) { await auth.setAccessToken("new") }
        let response = try await reauth.send(RetryFixtures.request(headers: ["Authorization": "Bearer old"]))
        #expect(response.statusCode == 200)
        #expect(await inner.recordedRequests.count == 2)
    }

    @Test("a 403 and a 404 are returned after one send", arguments: [403, 404])
    func otherClientErrors(code: Int) async throws {
        let inner = CannedRoutesTransport(routes: [CannedRoute(pattern: todos, response: .status(code))])
        #expect(try await transport(inner).send(RetryFixtures.request()).statusCode == code)
        #expect(await inner.recordedRequests.count == 1)
    }

    @Test("a POST that got a 503 is not retried")
    func postNotRetried() async throws {
        let inner = CannedRoutesTransport(routes: [CannedRoute(pattern: todos, responses: [.status(503), .status(201)])])
        let response = try await transport(inner).send(RetryFixtures.request(.post))
        #expect(response.statusCode == 503)
        #expect(await inner.recordedRequests.count == 1)
    }

    @Test("a POST with an Idempotency-Key is retried, and every send carries the same key and body")
    func postWithIdempotencyKeyRetried() async throws {
        let inner = CannedRoutesTransport(routes: [CannedRoute(pattern: todos, responses: [.status(503), .status(201)])])
        var request = RetryFixtures.request(.post, headers: ["Idempotency-Key": "order-42"])
        request.body = HTTPBody(Data(#"{"title":"milk"}"#.utf8))
        let response = try await transport(inner, random: .init([0.5])).send(request)
        #expect(response.statusCode == 201)
        let sent = await inner.recordedRequests
        #expect(sent.count == 2)
        #expect(sent.allSatisfy { $0.headers["Idempotency-Key"] == "order-42" })
        for sentRequest in sent { #expect(try await sentRequest.body?.collect(upTo: 100) == Data(#"{"title":"milk"}"#.utf8)) }
    }

    @Test("exact delays per jitter mode, from a scripted random source, reach the events and the clock")
    func exactDelaysPerMode() async throws {
        let cases: [(RetryPolicy.Jitter, [Double], [Double])] = [
            (.none, [], [0.5, 1, 2]),
            (.full, [0.5, 0.25, 0.75], [0.25, 0.25, 1.5]),
            (.equal, [0.5, 0, 1], [0.375, 0.5, 2]),
            // U(0.5, 1.5) → 1; U(0.5, 3) → 1.125; U(0.5, 3.375) → 0.5 + 2.875 × 0.5
            (.decorrelated, [0.5, 0.25, 0.5], [1, 1.125, 1.9375]),
        ]
        for (jitter, draws, expected) in cases {
            let inner = CannedRoutesTransport(routes: [CannedRoute(pattern: todos, response: .status(503))])
            let clock = TestClock()
            let random = RetryFixtures.ScriptedRandom(draws)
            let events = RecordingObserver()
            let policy = RetryPolicy(
                maxRetries: 3, baseDelay: .milliseconds(500), maxDelay: .seconds(30), jitter: jitter,
                budget: nil)
            _ = try await events.observing(RetryFixtures.retrying(inner, policy: policy, clock: clock, random: random))
                .send(RetryFixtures.request())
            #expect(RetryFixtures.delays(events) == expected.map { Duration.seconds($0) }, "\(jitter)")
            #expect(clock.sleeps == expected.map { Duration.seconds($0) }, "\(jitter)")
            #expect(random.remaining == 0, "\(jitter): the random source is drawn once per jittered retry")
        }
    }

    @Test("decorrelated jitter grows from computed delays only: a Retry-After does not inflate the next backoff")
    func decorrelatedIgnoresRetryAfter() async throws {
        let inner = CannedRoutesTransport(routes: [
            CannedRoute(
                pattern: todos,
                responses: [
                    .status(503, headers: ["Retry-After": "10"]), .status(503), .status(200),
                ])
        ])
        let events = RecordingObserver()
        let policy = RetryPolicy(baseDelay: .milliseconds(500), maxDelay: .seconds(30), jitter: .decorrelated, budget: nil)
        _ = try await transport(inner, policy: policy, random: .init([0.5]), events: events).send(RetryFixtures.request())
        #expect(RetryFixtures.delays(events) == [.seconds(10), .seconds(1)]) // U(0.5, 0.5 × 3), not U(0.5, 10 × 3)
    }

    @Test("each retry is reported with its number, delay, reason, method and URL, under the attempt that failed")
    func eventsReportRetries() async throws {
        let inner = CannedRoutesTransport(routes: [CannedRoute(pattern: todos, error: TransportError(.cannotConnect))])
        let events = RecordingObserver()
        let retrying = transport(
            inner, policy: RetryPolicy(maxRetries: 2, baseDelay: .seconds(1), jitter: .none, budget: nil),
            events: events)
        await #expect(throws: TransportError.self) { try await retrying.send(RetryFixtures.request(.put)) }
        let url = URL(string: "https://api.example.com/todos")
        #expect(
            events.events(RetryEvent.self) == [
                .scheduled(
                    retry: 1, delay: .seconds(1), reason: .transportError(.cannotConnect), delaySource: .backoff,
                    method: .put, url: url),
                .scheduled(
                    retry: 2, delay: .seconds(2), reason: .transportError(.cannotConnect), delaySource: .backoff,
                    method: .put, url: url),
            ])
        #expect(events.events(RetryEvent.self)[0].description == "retry 1 of PUT https://api.example.com/todos in 1.0 s (cannot connect)")
        let jittered = RetryEvent.scheduled(
            retry: 1, delay: .microseconds(371_234), reason: .transportError(.cannotConnect),
            delaySource: .retryAfter, method: .put, url: url)
        #expect(jittered.description == "retry 1 of PUT https://api.example.com/todos in 0.371 s as Retry-After asked (cannot connect)")
        #expect(events.all.filter { $0.event is RetryEvent }.map(\.attempt) == [1, 2])
    }

    @Test("a 503 with Retry-After waits exactly as asked, even with jitter that would draw less")
    func retryAfterHonoured() async throws {
        let inner = CannedRoutesTransport(routes: [
            CannedRoute(
                pattern: todos,
                responses: [
                    .status(503, headers: ["Retry-After": "3"]), .status(200),
                ])
        ])
        let events = RecordingObserver()
        let response = try await transport(inner, events: events).send(RetryFixtures.request())
        #expect(response.statusCode == 200)
        #expect(RetryFixtures.delays(events) == [.seconds(3)])
        guard case .scheduled(_, _, _, let source, _, _) = events.events(RetryEvent.self).first else {
            Issue.record("no retry was reported")
            return
        }
        #expect(source == .retryAfter)
    }

    @Test("a Retry-After above maxRetryAfter returns that response at once, without waiting")
    func retryAfterOverCapReturnsImmediately() async throws {
        let inner = CannedRoutesTransport(routes: [
            CannedRoute(
                pattern: todos,
                responses: [
                    .status(429, headers: ["Retry-After": "3600"]), .status(200),
                ])
        ])
        let events = RecordingObserver()
        let response = try await transport(inner, policy: RetryPolicy(maxRetryAfter: .seconds(60), budget: nil), events: events)
            .send(RetryFixtures.request())
        #expect(response.statusCode == 429)
        #expect(response.headers["Retry-After"] == "3600")
        #expect(await inner.recordedRequests.count == 1)
        #expect(events.events(RetryEvent.self).isEmpty)
    }

    @Test("a task cancelled during a send is not retried and gets CancellationError")
    func cancelledDuringSend() async throws {
        let sleeper = RetryFixtures.SleepUntilCancelled()
        // The inner transport "sends" by waiting until the task is cancelled.
        let inner = ClosureTransport { _ in
            try await sleeper.sleep(.seconds(60))
            return HTTPResponse(statusCode: 200)
        }
        let retrying = transport(inner)
        let task = Task { try await retrying.send(RetryFixtures.request()) }
        await sleeper.untilSleeping()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(await inner.recordedRequests.count == 1)
    }

    @Test("cancelling during the backoff wait ends it with CancellationError, without another send")
    func cancelledDuringBackoff() async throws {
        let inner = CannedRoutesTransport(routes: [CannedRoute(pattern: todos, response: .status(503))])
        // This clock's sleep returns only when its task is cancelled: if the request ends, the
        // cancel ended the wait.
        let clock = SleepsUntilCancelledClock()
        let retrying = RetryTransport(
            inner: inner, policy: RetryPolicy(baseDelay: .seconds(30), jitter: .none),
            clock: clock)
        let task = Task { try await retrying.send(RetryFixtures.request()) }
        await clock.sleeper.untilSleeping()
        await expectCancelEndsWait(task)
        #expect(await inner.recordedRequests.count == 1)
    }

    @Test("the default clock's sleep ends at the cancel, not after the backoff")
    func liveSleepIsCancellationAware() async throws {
        let inner = CannedRoutesTransport(routes: [CannedRoute(pattern: todos, response: .status(503))])
        let (retried, signal) = AsyncStream<Void>.makeStream()
        let backoff = TestTimeScale.scaled(.seconds(60))
        let retrying = ObservingTransport(
            inner: RetryTransport(inner: inner, policy: RetryPolicy(baseDelay: backoff, maxDelay: backoff, jitter: .none))
        ) { observed in
            if observed.event is RetryEvent { signal.yield() }
        }
        let task = Task { try await retrying.send(RetryFixtures.request()) }
        for await _ in retried { break } // the transport is about to wait out the backoff
        await expectCancelEndsWait(task, before: backoff / 12)
        #expect(await inner.recordedRequests.count == 1)
    }

    @Test("a sleep that ignores cancellation still cannot cause another send after cancel")
    func cancellationCheckedAfterSleep() async throws {
        let inner = ClosureTransport { _ in
            withUnsafeCurrentTask { $0?.cancel() } // the caller cancels while this attempt runs
            return HTTPResponse(statusCode: 503)
        }
        let retrying = RetryTransport(
            inner: inner, policy: RetryPolicy(jitter: .none, budget: nil),
            clock: CancellationIgnoringClock())
        // In a task of its own: cancelling the test's task would cancel the test.
        let task = Task { try await retrying.send(RetryFixtures.request()) }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(await inner.recordedRequests.count == 1)
    }

    /// Cancels `task` and expects it to end with `CancellationError` before `bound` has passed on
    /// `ContinuousClock`; a task still running then is cancelled no further and fails the test
    /// instead of hanging it.
    ///
    /// The bound only tells "ended at the cancel" from "ended after the backoff" (or never): the
    /// cancellation latency itself, 56–112 µs measured alone, is a figure for a benchmark. As a
    /// test bound on two cores shared by the whole parallel suite it measured the scheduler
    /// instead: 108–384 ms in one CI run.
    private func expectCancelEndsWait(
        _ task: Task<HTTPResponse, any Error>,
        before bound: Duration = TestTimeScale.scaled(.seconds(5))
    ) async {
        task.cancel()
        // Unstructured on purpose: a task group would wait for a child stuck on a task that never
        // ends, which is the hang this guard exists to turn into a failure.
        let (outcomes, report) = AsyncStream<Result<HTTPResponse, any Error>?>.makeStream()
        Task { report.yield(await task.result) }
        let guardTimer = Task {
            try? await Task.sleep(for: bound); report.yield(nil)
        }
        var outcome: Result<HTTPResponse, any Error>? // nil: the guard fired first
        for await reported in outcomes { outcome = reported; break }
        guardTimer.cancel()
        guard let outcome else {
            Issue.record("the cancelled request was still waiting after \(bound)")
            return
        }
        #expect(throws: CancellationError.self) { try outcome.get() }
    }
}
