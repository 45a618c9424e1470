/// How many calls a ``ConcurrencyLimitTransport`` lets run at once in one group, how many may
/// wait for a place, and for how long.
///
/// The defaults follow Envoy's cluster circuit breakers in spirit (a cap on active requests and
/// a cap on pending ones) with numbers for one client process rather than a proxy:
///
/// | setting | default | anchor |
/// |---|---|---|
/// | ``maxInFlight`` | 64 | resilience4j `Bulkhead.maxConcurrentCalls` 25, Envoy `max_requests` 1,024 per cluster: a client process sits between the two |
/// | ``maxQueued`` | 256 | Envoy `max_pending_requests` 1,024; Polly's `QueueLimit` 0 (no queue) |
/// | ``queueTimeout`` | 5 s | resilience4j `maxWaitDuration` (0 there: set `maxQueued` 0 for that) |
public struct ConcurrencyLimitPolicy: Sendable, Hashable {
    /// The most calls of one group in flight at once (at least 1).
    public var maxInFlight: Int
    /// The most calls of one group waiting for a place (0: a call that finds no place fails at
    /// once).
    public var maxQueued: Int
    /// The longest a call waits for a place; the request's ``/Strata/RequestDeadline`` bounds the wait
    /// too, whichever ends first.
    public var queueTimeout: Duration

    /// Creates a policy; counts below their minimum are raised to it, a negative timeout is zero.
    ///
    /// - Parameters:
    ///   - maxInFlight: The most calls of one group in flight at once.
    ///   - maxQueued: The most calls of one group waiting for a place.
    ///   - queueTimeout: The longest a call waits for a place.
    public init(maxInFlight: Int = 64, maxQueued: Int = 256, queueTimeout: Duration = .seconds(5)) {
        self.maxInFlight = max(1, maxInFlight)
        self.maxQueued = max(0, maxQueued)
        self.queueTimeout = max(.zero, queueTimeout)
    }
}
