import Foundation
import Strata

/// A decorator that cuts a slow tail: when an idempotent request has not been answered after a
/// delay, it sends the same request again, and the first response wins.
///
/// ```swift
/// let stack = TransportStack(
///     .retry(),
///     .etag(store: store),
///     .hedging(policy: HedgingPolicy(delay: .percentile(0.95))),
///     terminal: URLSessionTransport())
/// ```
///
/// ## Where it goes
/// Inside ``/Strata/RetryTransport`` and the ETag cache, outside a circuit breaker and a per-attempt
/// timeout: `Reauth → Retry → ETag → Hedging → CircuitBreaker → AttemptTimeout → terminal`.
/// - A hedge is an attempt. Retry above sees one outcome per hedged request and retries it as a
///   whole when every attempt failed; hedging above retry would multiply the two (each hedge
///   retrying on its own). Polly v8 puts hedging where retry would be, for the same reason.
/// - The cache above answers fresh hits without the network, so they never reach (or skew the
///   latencies of) this layer, and it coalesces identical `GET`s in flight: a hedge sent above
///   it would join the first attempt's exchange and gain nothing.
/// - Below it, each attempt is counted by a circuit breaker and bounded by its own timeout, as in
///   Polly's hedging pipeline and Envoy's `hedge_on_per_try_timeout`. A loser is cancelled: the
///   layers below see `CancellationError`.
///
/// ## Contract
/// - Only a request ``HedgingPolicy`` calls hedgeable is hedged: an idempotent method or an
///   `Idempotency-Key`, and no body or a replayable one. Any other request (a `POST`, a
///   single-pass upload) goes straight to `inner`, with no work added.
/// - Hedge `n` is sent `n × delay` after the first attempt, while no attempt has answered, if
///   the ``HedgingBudget`` has a token and its delay ends before the request's
///   `RequestDeadline`. The first *response*, whatever its status, is returned (a 503 too: what
///   to do with it is the retry layer's business); the other attempts are cancelled, so their
///   transports close their connections without reading their bodies.
/// - An attempt that throws while another is in flight does not end the request. When every
///   attempt has failed, the first attempt's error is thrown. When the first attempt throws
///   before any hedge was sent, its error is thrown at once.
/// - `send` returns once the losers have stopped: a transport below that ignores cancellation
///   holds the winner back until it returns (URLSessionTransport does not).
/// - Cancelling the calling task cancels every attempt and throws `CancellationError`.
/// - Each hedge runs as the next attempt of the logical request (`TransportEvents`), and is
///   reported with ``HedgingEvent``.
/// - All requests through one instance, and its copies, share one budget and one latency window
///   per group.
public struct HedgingTransport: Transport {
    /// The transport every attempt is sent through.
    public let inner: any Transport
    /// `inner`, when it reports client identities (looked up once, not per request).
    private let cacheIdentities: (any CacheIdentityProviding)?
    /// What is hedged, after which delay, within which budget.
    package let policy: HedgingPolicy
    let clock: ErasedClock
    private let budget: SharedHedgingBudget?
    /// The recent latencies per group, for a percentile delay; `nil` for a fixed one.
    private let latencies: PartitionedState<LatencyWindow>?
    /// Whether a layer below may observe events: only then is a logical request begun.
    private let beginsLogicalRequest: Bool

    /// Creates a hedging transport.
    ///
    /// - Parameters:
    ///   - inner: The transport every attempt is sent through.
    ///   - policy: What is hedged, after which delay, within which budget.
    ///   - clock: The clock delays are waited on and latencies measured with. Default:
    ///     `ContinuousClock()`; tests pass `TestClock(sleepsAdvanceTime: false)`.
    public init(inner: any Transport, policy: HedgingPolicy = HedgingPolicy(), clock: some Clock<Duration> = ContinuousClock()) {
        self.inner = inner
        cacheIdentities = inner as? any CacheIdentityProviding
        self.policy = policy
        self.clock = ErasedClock(clock)
        budget = policy.budget.map(SharedHedgingBudget.init)
        if case .percentile(let percentile, let minimumSamples, _, _) = policy.delay {
            latencies = PartitionedState(
                makeState: { LatencyWindow(percentile: percentile, minimumSamples: minimumSamples) },
                isAtRest: { _ in true }) // Dropping a window loses samples only: the fallback applies again.
        } else {
            latencies = nil
        }
        beginsLogicalRequest = TransportEvents.mayBeObserved(within: inner)
    }

    /// The tokens left in the shared hedging budget, or `nil` when the policy has no budget.
    public var availableHedgeTokens: Double? { budget?.tokens }

    /// Sends `request`, hedging it as the policy allows.
    ///
    /// - Returns: The first response any attempt got, whatever its status.
    /// - Throws: The first attempt's error when every attempt failed; `CancellationError` when
    ///   the calling task is cancelled.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard policy.isHedgeable(request) else { return try await inner.send(request) }
        // One logical request: a LoggingTransport below sees every attempt under one identifier.
        guard beginsLogicalRequest else { return try await sendHedged(request) }
        return try await TransportEvents.withinRequest { try await sendHedged(request) }
    }

    private nonisolated(nonsending) func sendHedged(_ request: HTTPRequest) async throws -> HTTPResponse {
        let plan = plan(for: request)
        let outcome = await withTaskGroup(of: HedgeRaceStep<HTTPResponse>.self) { group -> Result<HTTPResponse, any Error> in
            group.addTask { .answered(attempt: 0, await Self.outcome { try await inner.send(request) }) }
            if plan.hedges > 0 { group.addTask { await timer(plan.delay, then: 1) } }
            var race = HedgeRace()
            while let step = await group.next() {
                switch step {
                case .timerCancelled:
                    continue
                case .hedgeDue(let hedge):
                    guard mayStartHedge(hedge, of: request, in: &race) else { continue }
                    group.addTask {
                        await TransportEvents.withNextAttempt {
                            TransportEvents.emit(
                                HedgingEvent.sent(hedge: hedge, delay: plan.delay * hedge, method: request.method, url: request.url))
                            return .answered(attempt: hedge, await Self.outcome { try await inner.send(request) })
                        }
                    }
                    if hedge < plan.hedges { group.addTask { await timer(plan.delay, then: hedge + 1) } }
                case .answered(let attempt, .success(let response)):
                    group.cancelAll()
                    finish(plan, winner: attempt, status: response.statusCode, race: race, request: request)
                    return .success(response)
                case .answered(let attempt, .failure(let error)):
                    guard let final = race.failed(attempt: attempt, with: error) else { continue }
                    group.cancelAll()
                    return .failure(final)
                }
            }
            return .failure(CancellationError()) // Not reached: the first attempt always reports.
        }
        if case .failure = outcome { try Task.checkCancellation() }
        return try outcome.get()
    }

    /// What is decided once per hedged request, before its first send.
    struct HedgePlan: Sendable {
        /// The delay before each hedge.
        var delay: Duration
        /// How many hedges may be scheduled.
        var hedges: Int
        /// The latency window's group, for a percentile delay.
        var latencyGroup: String?
        /// When the first attempt was sent, on the layer's clock.
        var started: Duration
    }

    /// Deposits the request's share into the budget, and decides the delay and how many hedges
    /// fit before the deadline (reporting a hedge the deadline leaves no room for).
    func plan(for request: HTTPRequest) -> HedgePlan {
        budget?.recordRequest()
        let delay: Duration
        var group: String?
        switch policy.delay {
        case .fixed(let fixed):
            delay = fixed
        case .percentile(_, _, let fallback, let partition):
            let key = partition.key(for: request)
            group = key
            delay = latencies?.withState(for: key) { $0.delay(fallback: fallback) } ?? fallback
        }
        let clamped = max(.zero, delay)
        let hedges = policy.hedgesThatFit(delay: clamped, timeLeft: RequestDeadline.remaining)
        if hedges < policy.maxHedgedAttempts {
            TransportEvents.emit(
                HedgingEvent.skipped(hedge: hedges + 1, reason: .deadlineWouldPass, method: request.method, url: request.url))
        }
        return HedgePlan(delay: clamped, hedges: hedges, latencyGroup: group, started: clock.elapsed())
    }

    /// Whether hedge `hedge`, now due, is sent: not when the caller was cancelled, nor when the
    /// budget has no token (reported). Records it as sent when it is.
    func mayStartHedge(_ hedge: Int, of request: HTTPRequest, in race: inout HedgeRace) -> Bool {
        guard !Task.isCancelled else { return false }
        if let budget, !budget.withdrawHedge() {
            TransportEvents.emit(HedgingEvent.skipped(hedge: hedge, reason: .budgetExhausted, method: request.method, url: request.url))
            return false
        }
        race.sent(hedge: hedge)
        return true
    }

    /// Records the first attempt's latency (see ``HedgingDelay/percentile(_:minimumSamples:fallback:partition:)``)
    /// and reports which attempt won, when a hedge was sent.
    func finish(_ plan: HedgePlan, winner: Int, status: Int, race: HedgeRace, request: HTTPRequest) {
        let elapsed = clock.elapsed() - plan.started
        if let group = plan.latencyGroup, status < 500, !race.primaryFailed {
            latencies?.withState(for: group) { $0.record(elapsed) }
        }
        guard race.hedgesSent > 0 else { return }
        TransportEvents.emit(
            winner == 0
                ? HedgingEvent.lost(hedgesSent: race.hedgesSent, elapsed: elapsed, method: request.method, url: request.url)
                : HedgingEvent.won(hedge: winner, elapsed: elapsed, method: request.method, url: request.url))
    }

    /// Waits `delay`, then reports hedge `hedge` due; reports the wait cancelled when it is.
    func timer<Answer>(_ delay: Duration, then hedge: Int) async -> HedgeRaceStep<Answer> {
        do {
            try await clock.sleep(for: delay)
            return .hedgeDue(hedge)
        } catch {
            return .timerCancelled
        }
    }

    /// What `body` returned or threw.
    static func outcome<Answer>(_ body: () async throws -> Answer) async -> Result<Answer, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }
}

extension TransportLayer {
    /// A ``HedgingTransport`` layer, for a `TransportStack`: place it inside `.retry` and the
    /// ETag cache, outside a circuit breaker and a per-attempt timeout (see ``HedgingTransport``).
    public static func hedging(policy: HedgingPolicy = HedgingPolicy(), clock: some Clock<Duration> = ContinuousClock()) -> TransportLayer {
        TransportLayer { HedgingTransport(inner: $0, policy: policy, clock: clock) }
    }
}

extension HedgingTransport: CacheIdentityProviding {
    /// The client identity `inner` reports for `url`, or `nil` when it reports none or does not
    /// conform: this layer never changes which certificate a request is sent with.
    public func cacheIdentity(for url: URL) -> String? {
        cacheIdentities?.cacheIdentity(for: url)
    }
}

extension HedgingTransport: EventObservationScope {
    package var mayObserveEvents: Bool { beginsLogicalRequest }
}
