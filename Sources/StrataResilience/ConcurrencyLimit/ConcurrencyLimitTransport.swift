#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata

/// A decorator that caps how many calls run at once in a group (by default an origin): a
/// bulkhead, so one slow dependency cannot take every connection, task and byte of memory the
/// process has.
///
/// A call that finds a place starts at once; otherwise it waits in its group's queue, first come
/// first served, until a call in flight ends, its ``ConcurrencyLimitPolicy/queueTimeout``
/// passes, or its ``/Strata/RequestDeadline`` does. When the queue is full it fails at once.
///
/// ## Where it goes
/// Outside ``/Strata/RetryTransport``, so a place covers a request's attempts and its retry waits: a
/// retrying request keeps its place rather than queuing again behind newer callers, and the limit
/// counts requests as your callers see them. For a cap per host and one for the whole process,
/// stack two layers, the process-wide one outermost:
/// ```swift
/// let stack = TransportStack(
///     .concurrencyLimit(ConcurrencyLimitPolicy(maxInFlight: 256), partition: .global),
///     .concurrencyLimit(ConcurrencyLimitPolicy(maxInFlight: 32)),       // per origin
///     .retry(),
///     terminal: URLSessionTransport())
/// ```
///
/// ## Contract
/// - A place is held until `send` returns or throws, or, for `stream`, until `consume` returns.
/// - A waiter whose task is cancelled leaves the queue at once with `CancellationError`, and its
///   place in the queue goes to the next caller.
/// - A full queue fails with ``ConcurrencyLimitError`` (``ConcurrencyLimitError/Reason/queueFull(maxInFlight:maxQueued:)``),
///   a wait past the queue timeout with ``ConcurrencyLimitError/Reason/queueTimedOut(waited:)``,
///   and a wait past the request's deadline with ``/Strata/TransportError`` of kind
///   ``/Strata/TransportError/Kind/timedOut``, as every transport does when the deadline passes.
/// - All requests through one instance, and its copies, share the places.
public struct ConcurrencyLimitTransport: Transport {
    private typealias Waiter = CheckedContinuation<Void, any Error>

    /// The transport calls are sent through once they have a place.
    public let inner: any Transport
    /// `inner`, when it reports client identities (looked up once, not per request).
    private let cacheIdentities: (any CacheIdentityProviding)?
    /// The places and the queue of each group.
    public let policy: ConcurrencyLimitPolicy
    /// How requests are grouped.
    public let partition: RequestPartition
    private let limiters: PartitionedState<ConcurrencyLimiter<Waiter>>
    private let clock: ErasedClock
    private let waiterIDs = LockedValue<UInt64>(0)

    /// Creates a concurrency limit.
    ///
    /// - Parameters:
    ///   - inner: The transport calls are sent through.
    ///   - policy: How many calls run and wait, and for how long.
    ///   - partition: How requests are grouped. Default: one limit per origin.
    ///   - clock: The clock the queue timeout runs on. Default: `ContinuousClock()`; tests pass
    ///     a `TestClock`.
    public init(
        inner: any Transport, policy: ConcurrencyLimitPolicy = ConcurrencyLimitPolicy(),
        partition: RequestPartition = .origin, clock: some Clock<Duration> = ContinuousClock()
    ) {
        self.inner = inner
        cacheIdentities = inner as? any CacheIdentityProviding
        self.policy = policy
        self.partition = partition
        self.clock = ErasedClock(clock)
        limiters = PartitionedState(makeState: { ConcurrencyLimiter(policy: policy) }, isAtRest: \.isIdle)
    }

    /// How many calls of `request`'s group are in flight and how many wait.
    public func load(for request: HTTPRequest) -> (inFlight: Int, queued: Int) {
        limiters.state(for: partition.key(for: request)).map { ($0.inFlight, $0.queued) } ?? (0, 0)
    }

    /// Sends `request` once it has a place.
    ///
    /// - Throws: ``ConcurrencyLimitError`` when no place came free, ``/Strata/TransportError`` of kind
    ///   ``/Strata/TransportError/Kind/timedOut`` when the request's deadline passed while it waited,
    ///   `CancellationError` when its task was cancelled while it waited; otherwise what `inner`
    ///   throws.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let group = partition.key(for: request)
        try await acquire(group, for: request)
        defer { release(group) }
        return try await inner.send(request)
    }

    /// Streams `request` once it has a place, held until `consume` returns.
    ///
    /// - Throws: What ``send(_:)`` throws, and what `consume` throws.
    public func stream<Result: Sendable>(
        _ request: HTTPRequest,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        let group = partition.key(for: request)
        try await acquire(group, for: request)
        defer { release(group) }
        return try await inner.stream(request, consume)
    }

    /// Takes a place in `group`, waiting for one when the policy allows.
    private func acquire(_ group: String, for request: HTTPRequest) async throws {
        // The common case: a free place, one lock and no suspension.
        if limiters.withState(for: group, { $0.tryAcquire() }) { return }
        try Task.checkCancellation()
        let remaining = RequestDeadline.remaining
        let wait = min(policy.queueTimeout, max(.zero, remaining ?? policy.queueTimeout))
        let deadlineBinds = remaining.map { $0 < policy.queueTimeout } ?? false
        // Made here, in the caller's task, where the deadline's task-local is.
        let timeoutError: any Error =
            deadlineBinds
            ? RequestDeadline.timedOut(method: request.method, url: request.url)
            : ConcurrencyLimitError(reason: .queueTimedOut(waited: wait), group: group, method: request.method, url: request.url)
        let id = waiterIDs.withLock { id in
            id &+= 1
            return id
        }
        let started = clock.elapsed()
        let timer = LockedValue<Task<Void, Never>?>(nil)
        defer { timer.withLock { $0 }?.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Waiter) in
                let admission = limiters.withState(for: group) { $0.acquire(id: id, waiter: continuation) }
                switch admission {
                case .granted:
                    continuation.resume()
                case .rejected:
                    let reason = ConcurrencyLimitError.Reason.queueFull(maxInFlight: policy.maxInFlight, maxQueued: policy.maxQueued)
                    TransportEvents.emit(
                        ConcurrencyLimitEvent.rejected(group: group, reason: reason, method: request.method, url: request.url))
                    continuation.resume(
                        throwing: ConcurrencyLimitError(reason: reason, group: group, method: request.method, url: request.url))
                case .queued(let position):
                    TransportEvents.emit(
                        ConcurrencyLimitEvent.queued(group: group, position: position, method: request.method, url: request.url))
                    // Cancelled before the waiter was queued: the cancellation handler found nothing.
                    if Task.isCancelled, let waiter = limiters.withState(for: group, { $0.remove(id: id) }) {
                        return waiter.resume(throwing: CancellationError())
                    }
                    timer.withLock { timer in
                        timer = Task { [clock, limiters] in
                            guard (try? await clock.sleep(for: wait)) != nil else { return }
                            limiters.withState(for: group) { $0.remove(id: id) }?.resume(throwing: timeoutError)
                        }
                    }
                }
            }
        } onCancel: {
            limiters.withState(for: group) { $0.remove(id: id) }?.resume(throwing: CancellationError())
        }
        TransportEvents.emit(ConcurrencyLimitEvent.admitted(group: group, waited: clock.elapsed() - started))
    }

    /// Frees a place in `group`: the first waiter takes it.
    private func release(_ group: String) {
        limiters.withState(for: group) { $0.release() }?.resume()
    }
}

extension TransportLayer {
    /// A ``ConcurrencyLimitTransport`` layer, for a ``/Strata/TransportStack``.
    public static func concurrencyLimit(
        _ policy: ConcurrencyLimitPolicy = ConcurrencyLimitPolicy(), partition: RequestPartition = .origin,
        clock: some Clock<Duration> = ContinuousClock()
    ) -> TransportLayer {
        TransportLayer { ConcurrencyLimitTransport(inner: $0, policy: policy, partition: partition, clock: clock) }
    }
}

extension ConcurrencyLimitTransport: CacheIdentityProviding {
    /// The client identity `inner` reports for `url`, or `nil` when it reports none or does not
    /// conform: this layer never changes which certificate a request is sent with.
    public func cacheIdentity(for url: URL) -> String? {
        cacheIdentities?.cacheIdentity(for: url)
    }
}

extension ConcurrencyLimitTransport: EventObservationScope {
    package var mayObserveEvents: Bool { TransportEvents.mayBeObserved(within: inner) }
}
