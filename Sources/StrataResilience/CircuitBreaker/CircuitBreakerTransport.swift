#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata

/// A decorator that stops calling a dependency that keeps failing: once enough of the recent
/// calls to a group (by default an origin) failed, every call to it fails at once with
/// ``CircuitOpenError`` for a while, then a few probes test whether it recovered.
///
/// A service whose dependency is down otherwise keeps sending it every request, each waiting out
/// its timeout, and piles up its own callers behind them; the open circuit answers in
/// microseconds and gives the dependency room to recover.
///
/// ## Where it goes
/// Inside ``/Strata/RetryTransport`` and outside the per-attempt timeout, as in Polly's standard
/// pipeline (retry → circuit breaker → attempt timeout): each attempt is counted, an attempt
/// that times out counts as a failure, and a retry meets the open circuit and stops at once
/// (``CircuitOpenError`` is not retryable). Inside `ETagTransport`, so that a fresh hit the
/// cache answers is not counted as a call to the dependency. The whole recommended order is in
/// <doc:BuildingAResilientStack>.
/// ```swift
/// let stack = TransportStack(
///     .retry(),
///     .circuitBreaker(policy: CircuitBreakerPolicy(minimumThroughput: 20)),
///     .attemptTimeout(.seconds(2)),
///     terminal: URLSessionTransport())
/// ```
///
/// ## Contract
/// - Each group (``RequestPartition``, default ``RequestPartition/origin``) has its own circuit;
///   all requests through one instance, and its copies, share the circuits.
/// - What counts as a failure is ``CircuitBreakerPolicy/isFailure`` (default: 5xx and transient
///   ``/Strata/TransportError``s, never a 4xx). `CancellationError` counts as nothing.
/// - A streamed call counts when its head arrives (or its error, when none does): a body cut
///   later is that stream's error, and a long stream never holds a half-open probe's place.
/// - An open circuit fails calls without sending them; state changes and refusals are reported
///   as ``CircuitBreakerEvent``s.
public struct CircuitBreakerTransport: Transport {
    /// The transport calls are sent through while the circuit lets them.
    public let inner: any Transport
    /// `inner`, when it reports client identities (looked up once, not per request).
    private let cacheIdentities: (any CacheIdentityProviding)?
    /// When circuits open and close.
    public let policy: CircuitBreakerPolicy
    /// How requests are grouped into circuits.
    public let partition: RequestPartition
    private let circuits: PartitionedState<CircuitBreakerCircuit>
    private let clock: ErasedClock
    /// The wall-clock time when `clock` was handed over, for ``CircuitOpenError/retryAt``.
    private let wallClockOrigin: Date

    /// Creates a circuit breaker.
    ///
    /// - Parameters:
    ///   - inner: The transport calls are sent through.
    ///   - policy: When circuits open and close, and what counts as a failure.
    ///   - partition: How requests are grouped into circuits. Default: one circuit per origin.
    ///   - clock: The clock windows and breaks are measured on. Default: `ContinuousClock()`;
    ///     tests pass a `TestClock`.
    public init(
        inner: any Transport, policy: CircuitBreakerPolicy = CircuitBreakerPolicy(),
        partition: RequestPartition = .origin, clock: some Clock<Duration> = ContinuousClock()
    ) {
        self.inner = inner
        cacheIdentities = inner as? any CacheIdentityProviding
        self.policy = policy
        self.partition = partition
        let erased = ErasedClock(clock)
        self.clock = erased
        wallClockOrigin = Date()
        circuits = PartitionedState(
            makeState: { CircuitBreakerCircuit(policy: policy) },
            isAtRest: { $0.isAtRest(now: erased.elapsed()) })
    }

    /// Where the circuit that `request` would go through is.
    public func state(for request: HTTPRequest) -> CircuitState {
        let now = clock.elapsed()
        guard let circuit = circuits.state(for: partition.key(for: request)) else { return .closed }
        switch circuit.phase {
        case .closed: return .closed
        case .open(let until) where until > now: return .open(reopensIn: until - now)
        case .open, .halfOpen: return .halfOpen
        }
    }

    /// Sends `request` when its circuit lets it, and counts the outcome.
    ///
    /// - Throws: ``CircuitOpenError`` at once while the circuit is open; otherwise what `inner`
    ///   throws.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let (group, ticket) = try admit(request)
        let response: HTTPResponse
        do {
            response = try await inner.send(request)
        } catch {
            record(.error(error), group: group, ticket: ticket)
            throw error
        }
        record(.response(response.head), group: group, ticket: ticket)
        return response
    }

    /// Streams `request` when its circuit lets it; the call counts when the head arrives.
    ///
    /// - Throws: ``CircuitOpenError`` at once while the circuit is open; otherwise what `inner`
    ///   or `consume` throws.
    public func stream<Result: Sendable>(
        _ request: HTTPRequest,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        let (group, ticket) = try admit(request)
        var recorded = false
        do {
            return try await inner.stream(request) { head, body in
                recorded = true
                record(.response(head), group: group, ticket: ticket)
                return try await consume(head, body)
            }
        } catch  where !recorded {
            record(.error(error), group: group, ticket: ticket)
            throw error
        }
    }

    /// The group and ticket of a call the circuit lets through.
    ///
    /// - Throws: ``CircuitOpenError`` when the circuit refuses the call.
    private func admit(_ request: HTTPRequest) throws -> (String, CircuitBreakerCircuit.Ticket) {
        let group = partition.key(for: request)
        let now = clock.elapsed()
        let (admission, transition) = circuits.withState(for: group) { $0.admit(now: now) }
        if let transition { report(transition, group: group) }
        switch admission {
        case .admitted(let ticket):
            return (group, ticket)
        case .rejected(let retryAfter):
            let state: CircuitState = retryAfter > .zero ? .open(reopensIn: retryAfter) : .halfOpen
            TransportEvents.emit(CircuitBreakerEvent.rejected(group: group, state: state, method: request.method, url: request.url))
            let retryAt = retryAfter > .zero ? wallClockOrigin.addingTimeInterval((now + retryAfter).inSeconds) : nil
            throw CircuitOpenError(group: group, state: state, method: request.method, url: request.url, retryAt: retryAt)
        }
    }

    /// Counts `outcome` for the call admitted with `ticket`.
    private func record(_ outcome: CircuitBreakerPolicy.Outcome, group: String, ticket: CircuitBreakerCircuit.Ticket) {
        let classified: CircuitBreakerCircuit.Outcome
        if case .error(let error) = outcome, error is CancellationError {
            classified = .ignored
        } else {
            classified = policy.isFailure(outcome) ? .failure : .success
        }
        let now = clock.elapsed()
        let transition = circuits.withState(for: group) { $0.record(classified, ticket: ticket, now: now) }
        if let transition { report(transition, group: group) }
    }

    private func report(_ transition: CircuitBreakerCircuit.Transition, group: String) {
        switch transition {
        case .opened(let calls, let failures):
            TransportEvents.emit(
                CircuitBreakerEvent.opened(group: group, calls: calls, failures: failures, breakDuration: policy.breakDuration))
        case .halfOpened: TransportEvents.emit(CircuitBreakerEvent.halfOpened(group: group))
        case .reopened: TransportEvents.emit(CircuitBreakerEvent.reopened(group: group, breakDuration: policy.breakDuration))
        case .closed: TransportEvents.emit(CircuitBreakerEvent.closed(group: group))
        }
    }
}

extension TransportLayer {
    /// A ``CircuitBreakerTransport`` layer, for a ``/Strata/TransportStack``.
    public static func circuitBreaker(
        policy: CircuitBreakerPolicy = CircuitBreakerPolicy(), partition: RequestPartition = .origin,
        clock: some Clock<Duration> = ContinuousClock()
    ) -> TransportLayer {
        TransportLayer { CircuitBreakerTransport(inner: $0, policy: policy, partition: partition, clock: clock) }
    }
}

extension CircuitBreakerTransport: CacheIdentityProviding {
    /// The client identity `inner` reports for `url`, or `nil` when it reports none or does not
    /// conform: this layer never changes which certificate a request is sent with.
    public func cacheIdentity(for url: URL) -> String? {
        cacheIdentities?.cacheIdentity(for: url)
    }
}

extension CircuitBreakerTransport: EventObservationScope {
    package var mayObserveEvents: Bool { TransportEvents.mayBeObserved(within: inner) }
}
