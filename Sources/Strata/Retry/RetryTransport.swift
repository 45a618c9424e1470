#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// A decorator that sends a request again when it failed in a way that may pass: a transient
/// network error or a status such as 503, waiting with jittered exponential backoff or as long as
/// the server's `Retry-After` asks.
///
/// Use it around the transport that talks to the network, inside a `ReauthTransport`:
/// ```swift
/// let retrying = RetryTransport(inner: URLSessionTransport(),
///                               policy: RetryPolicy(maxRetries: 3, baseDelay: .milliseconds(500)))
/// let service = HTTPNetworkService(transport: retrying)
/// ```
///
/// ## Contract
/// - What is retried is decided by ``RetryPolicy``, a pure function of each attempt's outcome:
///   idempotent methods (or any request with an `Idempotency-Key`) that got a retryable status or
///   a transient ``TransportError``. A 401, 403 or other unlisted status, a TLS or pinning
///   failure, an invalid request and `CancellationError` are never retried, so a
///   `ReauthTransport` outside this one sees each 401 exactly once.
/// - When the transport stops, it returns the last response (the service then maps a 503 to an
///   error) or throws the last error; after at least one retry, either carries a
///   ``RetrySummary`` (attempts, time taken, why it stopped) that their descriptions include.
/// - Cancelling the calling task, during a send or during the wait, ends with
///   `CancellationError` at once.
/// - A ``RequestDeadline`` (an endpoint's `timeout`) is the budget for all attempts: a wait that
///   would not end before it is not started, and the last outcome is handed back instead.
/// - All requests through one instance, and its copies, share one ``RetryBudget`` bucket.
/// - Each retry is reported as ``RetryEvent/scheduled(retry:delay:reason:delaySource:method:url:)``
///   through ``TransportEvents``, under the attempt number of the send that failed, and runs as
///   the next attempt of the logical request.
public struct RetryTransport: Transport {
    /// The transport each attempt is sent through.
    public let inner: any Transport
    /// `inner`, when it reports client identities (looked up once, not per request).
    private let cacheIdentities: (any CacheIdentityProviding)?
    /// The rules for what is retried and how long to wait.
    package let policy: RetryPolicy
    private let clock: ErasedClock
    /// The wall-clock time when `clock` was handed over, for `Retry-After` HTTP-dates.
    private let wallClockOrigin: Date
    private let random: @Sendable () -> Double
    private let budget: SharedRetryBudget?
    /// Whether a layer below may observe events: only then is a logical request begun.
    private let beginsLogicalRequest: Bool

    /// Creates a retrying transport.
    ///
    /// - Parameters:
    ///   - inner: The transport each attempt is sent through.
    ///   - policy: What is retried and how long to wait.
    ///   - clock: The clock the waits happen on (and `Retry-After` dates are read against).
    ///     Default: `ContinuousClock()`; tests pass a `TestClock` so that nothing waits for real.
    ///   - random: Uniform numbers in `0..<1` for jitter; values outside are clamped. Default:
    ///     the system random generator.
    public init(
        inner: any Transport, policy: RetryPolicy = RetryPolicy(),
        clock: some Clock<Duration> = ContinuousClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.inner = inner
        cacheIdentities = inner as? any CacheIdentityProviding
        self.policy = policy
        self.clock = ErasedClock(clock)
        wallClockOrigin = Date()
        self.random = random
        budget = policy.budget.map(SharedRetryBudget.init)
        beginsLogicalRequest = TransportEvents.mayBeObserved(within: inner)
    }

    /// The tokens left in the shared retry budget, or `nil` when the policy has no budget.
    public var availableRetryTokens: Int? { budget?.tokens }

    /// Sends `request`, retrying as the policy allows.
    ///
    /// - Returns: The first response that is not retried: a success, a status the policy does
    ///   not retry, or the last response when retries, the budget or `maxRetryAfter` ran out.
    /// - Throws: The last error when it is not retryable or retries ran out; `CancellationError`
    ///   when the calling task is cancelled.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        // One logical request: a LoggingTransport below sees every attempt under one identifier.
        guard beginsLogicalRequest else { return try await sendRetrying(request) }
        return try await TransportEvents.withinRequest { try await sendRetrying(request) }
    }

    private nonisolated(nonsending) func sendRetrying(_ request: HTTPRequest) async throws -> HTTPResponse {
        var run = RetryRun(started: clock.elapsed(), timeBudget: RequestDeadline.remaining)
        while true {
            try Task.checkCancellation()
            let outcome: RetryOutcome
            do {
                outcome = .response(try await Self.attempt(after: run.retries) { try await inner.send(request) })
            } catch {
                outcome = .failure(error)
            }
            switch decide(outcome, for: request, in: &run) {
            case .retry(let plan): try await wait(plan, for: request, in: &run)
            case .stop(let reason): return try finish(outcome, run: run, stopReason: reason)
            }
        }
    }

    /// Streams `request`, retrying as the policy allows: each response head is decided on before
    /// `consume` sees it, so `consume` is called once, with the response that is not retried. Once
    /// `consume` has started, nothing is retried (an error it or the body throws is thrown).
    public func stream<Result: Sendable>(
        _ request: HTTPRequest,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        // Always one logical request: a stream's cost is its body, not this push.
        try await TransportEvents.withinRequest {
            var run = RetryRun(started: clock.elapsed(), timeBudget: RequestDeadline.remaining)
            while true {
                try Task.checkCancellation()
                var retry: RetryPlan?
                var consumed = false
                do {
                    let result = try await Self.attempt(after: run.retries) {
                        try await inner.stream(request) { head, body -> StreamStep<Result> in
                            // The head decides; a retried response's body is never read.
                            let response = HTTPResponse(statusCode: head.statusCode, headers: head.headers, url: head.url)
                            if case .retry(let plan) = decide(.response(response), for: request, in: &run) {
                                retry = plan
                                return .intercepted(response)
                            }
                            consumed = true
                            return .consumed(try await consume(head, body))
                        }
                    }
                    if case .consumed(let result) = result { return result }
                } catch  where !consumed {
                    let outcome = RetryOutcome.failure(error)
                    switch decide(outcome, for: request, in: &run) {
                    case .retry(let plan): retry = plan
                    case .stop(let reason): _ = try finish(outcome, run: run, stopReason: reason)
                    }
                }
                if let retry { try await wait(retry, for: request, in: &run) }
            }
        }
    }

    /// One request's retries so far: what the policy is asked about the next outcome.
    private struct RetryRun {
        var retries = 0
        var previousBackoff: Duration?
        var lastRetryCost: Int?
        /// When the first send started, on the layer's clock.
        let started: Duration
        /// The request's deadline, the budget for all attempts.
        let timeBudget: Duration?
    }

    /// Runs `send` as the first attempt, or, after `retries` retries, as the next attempt of the
    /// logical request.
    private static func attempt<T>(after retries: Int, _ send: () async throws -> T) async throws -> T {
        retries == 0 ? try await send() : try await TransportEvents.withNextAttempt(send)
    }

    /// The policy's decision on `outcome`, with the budget's say: a retry the budget cannot pay
    /// for stops with ``RetryStopReason/budgetExhausted``.
    private func decide(_ outcome: RetryOutcome, for request: HTTPRequest, in run: inout RetryRun) -> RetryDecision {
        let decision = policy.decision(
            for: outcome, request: request, retriesSoFar: run.retries,
            previousBackoff: run.previousBackoff,
            now: wallClockOrigin.addingTimeInterval(clock.elapsed().inSeconds),
            random: random, timeLeft: run.timeBudget.map { $0 - (clock.elapsed() - run.started) })
        switch decision {
        case .stop(.notRetryable):
            if case .response = outcome { budget?.recordSuccess(lastRetryCost: run.lastRetryCost) }
            return decision
        case .stop:
            return decision
        case .retry(let plan):
            guard let budget else { return decision }
            // The dependency is failing too often for retries to help: hand back what we have.
            guard let cost = budget.withdraw(for: plan.reason) else { return .stop(.budgetExhausted) }
            run.lastRetryCost = cost
            return decision
        }
    }

    /// Reports the retry and waits for its delay.
    private nonisolated(nonsending) func wait(_ plan: RetryPlan, for request: HTTPRequest, in run: inout RetryRun) async throws {
        run.retries += 1
        if plan.delaySource == .backoff { run.previousBackoff = plan.delay }
        let retries = run.retries
        // Reported as the send whose outcome is retried, which a layer below may have resent.
        await TransportEvents.withLatestAttempt {
            TransportEvents.emit(
                RetryEvent.scheduled(
                    retry: retries, delay: plan.delay, reason: plan.reason,
                    delaySource: plan.delaySource, method: request.method,
                    url: request.url))
        }
        // A clock may return from a sleep normally although the task was cancelled meanwhile;
        // the check at the top of the loop then stops before another send.
        try await clock.sleep(for: plan.delay)
    }

    /// The outcome handed to the caller; after at least one retry, it says how many sends were
    /// made, how long they took and why retrying stopped.
    private func finish(_ outcome: RetryOutcome, run: RetryRun, stopReason: RetryStopReason) throws -> HTTPResponse {
        guard run.retries > 0 else { return try outcome.get() }
        let summary = RetrySummary(attempts: run.retries + 1, elapsed: clock.elapsed() - run.started, stopReason: stopReason)
        switch outcome {
        case .response(var response):
            response.retrySummary = summary
            return response
        case .failure(var error as TransportError):
            error.retrySummary = summary
            throw error
        case .failure(let error):
            throw error
        }
    }
}

extension TransportLayer {
    /// A ``RetryTransport`` layer, for a ``TransportStack``.
    public static func retry(
        policy: RetryPolicy = RetryPolicy(), clock: some Clock<Duration> = ContinuousClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) -> TransportLayer {
        TransportLayer { RetryTransport(inner: $0, policy: policy, clock: clock, random: random) }
    }
}

extension RetryTransport: CacheIdentityProviding {
    /// The client identity `inner` reports for `url`, or `nil` when it reports none or does not
    /// conform: this layer never changes which certificate a request is sent with.
    public func cacheIdentity(for url: URL) -> String? {
        cacheIdentities?.cacheIdentity(for: url)
    }
}

extension RetryTransport: EventObservationScope {
    package var mayObserveEvents: Bool { beginsLogicalRequest }
}
