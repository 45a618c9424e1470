/// Whether ``RedisETagStore`` asks Redis now, as a pure state machine over times (durations
/// since an origin of the store's clock): a circuit breaker. After a failure Redis is left alone
/// for a delay that doubles on each further failure up to a maximum, then one operation probes
/// it; success closes the circuit.
///
/// While Redis is down every lookup would otherwise wait for a connect attempt, adding the
/// connect timeout to every request of the fleet; while it is left alone they are misses at
/// once.
struct RedisAvailability: Sendable {
    /// What to do with one operation.
    enum Admission: Hashable, Sendable {
        /// Ask Redis.
        case attempt
        /// Do not ask; it failed recently and is asked again after `retryAfter`.
        case skip(retryAfter: Duration, lastFailure: String)
    }

    /// The first delay after a failure.
    let initialDelay: Duration
    /// The longest delay.
    let maxDelay: Duration
    private var retryAt: Duration?
    private var delay: Duration
    private var isProbing = false
    private var lastFailure = ""
    private var missedOperations = 0

    /// Creates a closed circuit: Redis is asked.
    init(initialDelay: Duration, maxDelay: Duration) {
        self.initialDelay = max(initialDelay, .zero)
        self.maxDelay = max(maxDelay, self.initialDelay)
        delay = self.initialDelay
    }

    /// Whether the operation starting at `now` may ask Redis. Only one operation probes at a
    /// time once the delay has passed; the others stay misses until it reports back.
    mutating func admit(at now: Duration) -> Admission {
        guard let retryAt else { return .attempt }
        if now >= retryAt, !isProbing {
            isProbing = true
            return .attempt
        }
        missedOperations += 1
        return .skip(retryAfter: max(retryAt - now, .zero), lastFailure: lastFailure)
    }

    /// Records that Redis failed at `now`. Failures of operations that were already in flight
    /// when the circuit opened do not lengthen the delay; a failed probe doubles it.
    mutating func recordFailure(at now: Duration, reason: String) {
        lastFailure = reason
        missedOperations += 1
        if retryAt != nil, !isProbing { return }
        if isProbing { delay = min(delay * 2, maxDelay) }
        isProbing = false
        retryAt = now + delay
    }

    /// Records that Redis answered. Returns how many operations missed while it was failing,
    /// or `nil` when it was not.
    mutating func recordSuccess() -> Int? {
        guard retryAt != nil else { return nil }
        defer {
            retryAt = nil
            isProbing = false
            delay = initialDelay
            missedOperations = 0
        }
        return missedOperations
    }

    /// Records an outcome that says nothing about Redis's health (all connections busy, one
    /// unusable reply): a probe that ended so lets the next operation probe again.
    mutating func recordInconclusive() {
        isProbing = false
    }
}
