import Strata
import StrataPinning
import StrataResilience

/// The resilient stack Strata recommends, for the tour's circuit-breaker step: the tour's
/// layers with a concurrency limit, a circuit breaker and a per-attempt timeout added where each
/// layer's "Where it goes" puts it, over the tour's pinned transport, sharing its token and logs.
struct ResilientTourStack: Sendable {
    /// Each layer outermost first, with why it sits there; the narration prints it.
    static let layers: [(name: String, why: String)] = [
        ("LoggingTransport", "outermost: one log line per logical request, with every layer's events"),
        ("ReauthTransport", "a 401 refreshes once and resends; outside the limit, so a wait for the refresh holds no place"),
        ("ConcurrencyLimitTransport", "≤ 8 in flight per origin; outside retry, so one place covers every attempt"),
        ("RetryTransport", "retries 5xx with backoff, each retry an attempt below; never a CircuitOpenError"),
        ("ETagTransport", "fresh hits need no network, so they never meet (or count in) the circuit"),
        ("CircuitBreakerTransport", "counts every attempt; opens when half of the last 4 failed, for 30 s"),
        ("AttemptTimeoutTransport", "2 s per attempt; inside the breaker, so a timed-out attempt counts as a failure"),
        ("PinningTransport", "the terminal: localhost pinned, as in the first stack"),
    ]

    /// Opens after four failed attempts (a count window, so the tour's few calls are enough),
    /// and stays open far longer than the tour runs.
    static let circuitPolicy = CircuitBreakerPolicy(minimumThroughput: 4, window: .count(4), breakDuration: .seconds(30))
    /// The tour's short retry policy without a budget: every request may use both retries.
    static let retryPolicy: RetryPolicy = {
        var policy = TourStack.retryPolicy
        policy.budget = nil
        return policy
    }()

    let service: HTTPNetworkService
    let environment: DefaultAPIEnvironment
    let events = EventRecorder()

    /// Builds `Logging → Reauth → ConcurrencyLimit → Retry → ETag → CircuitBreaker →
    /// AttemptTimeout → Pinning` over `base`'s pinned transport, token and log collector.
    init(sharing base: TourStack) {
        let stack = TransportStack(
            .observing(events.record),
            .logging(logger: base.logs.logger),
            .reauth(authService: base.auth, refreshToken: base.refresh),
            .concurrencyLimit(ConcurrencyLimitPolicy(maxInFlight: 8, maxQueued: 16, queueTimeout: .seconds(1))),
            .retry(policy: Self.retryPolicy),
            .etag(store: InMemoryETagStore()),
            .circuitBreaker(policy: Self.circuitPolicy),
            .attemptTimeout(.seconds(2)),
            terminal: base.pinned)
        service = HTTPNetworkService(transport: stack, authService: base.auth)
        environment = base.environment
    }
}
