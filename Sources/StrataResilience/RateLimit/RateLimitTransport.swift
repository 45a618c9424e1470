#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata

/// A decorator that keeps to the server's rate limits: when a response says the limit of its
/// group (by default its origin) is used up, the next requests to that group wait until the
/// window reopens, instead of each finding out with a `429` of its own.
///
/// A response closes its group's window when it carries (see `RateLimitHeaders` for the exact
/// rules) a `429` or `503` with `Retry-After`, an exhausted policy in the IETF draft's
/// `RateLimit` field (`"default";r=0;t=30`, or the earlier `remaining=0, reset=30`), or
/// `RateLimit-Remaining: 0` / `X-RateLimit-Remaining: 0` with their reset.
///
/// ## Where it goes
/// Inside ``/Strata/RetryTransport``, so that it sees the response of every attempt: the first `429`
/// closes the window for every request at once, a retry's own wait then meets the hold (both
/// end together, so it costs nothing extra), and a held request waits within one attempt
/// instead of spending retries on `429`s. Polly's standard handler puts its rate limiter
/// outermost because that limiter counts the caller's logical requests; a server counts every
/// request it receives, retries included, so this layer sits where attempts pass. Inside the
/// cache (`ETagTransport`), so an answer from the store is never held; outside the circuit
/// breaker, the concurrency limit and the per-attempt timeout, so a held request holds no
/// probe or in-flight place and its wait is not counted against the attempt's time.
/// ```swift
/// let stack = TransportStack(
///     .retry(),
///     .rateLimit(policy: RateLimitPolicy(maxWait: .seconds(10))),
///     .circuitBreaker(),
///     terminal: URLSessionTransport())
/// ```
///
/// ## Contract
/// - Each group (``RequestPartition``, default ``RequestPartition/origin``) has its own window;
///   all requests through one instance, and its copies, share them. A window is only ever
///   extended by a response, never shortened: a late response with older numbers cannot open it.
/// - The response that closed the window is returned unchanged (a `429` stays a `429`, for a
///   ``/Strata/RetryTransport`` above to retry).
/// - A request to a closed window waits on the layer's clock until it reopens. When that wait
///   would be longer than ``RateLimitPolicy/maxWait`` or would not end before the request's
///   ``/Strata/RequestDeadline``, the request fails at once with ``RateLimitedError``, unsent.
/// - No server holds a window longer than ``RateLimitPolicy/maxHold`` per response.
/// - Cancelling the calling task during the wait ends it with `CancellationError` at once.
/// - ``stream(_:_:)`` decides on the head, before `consume` sees it; nothing is buffered.
/// - Windows closing, requests held and requests refused are reported as ``RateLimitEvent``s.
public struct RateLimitTransport: Transport {
    /// The transport requests are sent through once their window is open.
    public let inner: any Transport
    /// `inner`, when it reports client identities (looked up once, not per request).
    private let cacheIdentities: (any CacheIdentityProviding)?
    /// How long requests may wait and how long a server may hold.
    public let policy: RateLimitPolicy
    /// How requests are grouped into windows.
    public let partition: RequestPartition
    private let windows: PartitionedState<RateLimitWindow>
    private let clock: ErasedClock
    /// The wall-clock time when `clock` was handed over, for HTTP-dates, Unix-time resets and
    /// ``RateLimitedError/retryAt``.
    private let wallClockOrigin: Date
    /// Whether a layer below may observe events (for ``EventObservationScope``).
    private let innerMayObserve: Bool

    /// Creates a rate-limit layer.
    ///
    /// - Parameters:
    ///   - inner: The transport requests are sent through.
    ///   - policy: How long requests may wait, how long a server may hold, and an optional
    ///     client-side rate. Default: `RateLimitPolicy()` (30 s, 60 s, none).
    ///   - partition: How requests are grouped into windows. Default: one window per origin.
    ///   - clock: The clock the waits happen on (and dates are read against). Default:
    ///     `ContinuousClock()`; tests pass a `TestClock`.
    public init(
        inner: any Transport, policy: RateLimitPolicy = RateLimitPolicy(), partition: RequestPartition = .origin,
        clock: some Clock<Duration> = ContinuousClock()
    ) {
        self.inner = inner
        cacheIdentities = inner as? any CacheIdentityProviding
        self.policy = policy
        self.partition = partition
        let erased = ErasedClock(clock)
        self.clock = erased
        wallClockOrigin = Date()
        windows = PartitionedState(makeState: { RateLimitWindow() }, isAtRest: { $0.isAtRest(now: erased.elapsed()) })
        innerMayObserve = TransportEvents.mayBeObserved(within: inner)
    }

    /// Sends `request` once its group's window is open, and closes the window when the
    /// response says so.
    ///
    /// - Returns: The response, unchanged.
    /// - Throws: ``RateLimitedError`` at once when the window reopens later than the request may
    ///   wait; `CancellationError` when the task is cancelled while it waits; otherwise what
    ///   `inner` throws.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let group = partition.key(for: request)
        try await waitForWindow(request, group: group)
        let response = try await inner.send(request)
        await record(statusCode: response.statusCode, headers: response.headers, group: group)
        return response
    }

    /// Streams `request` once its group's window is open; the head is read for rate-limit
    /// fields before `consume` sees it.
    ///
    /// - Throws: What ``send(_:)`` throws, and what `consume` throws.
    public func stream<Result: Sendable>(
        _ request: HTTPRequest,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        let group = partition.key(for: request)
        try await waitForWindow(request, group: group)
        return try await inner.stream(request) { head, body in
            await record(statusCode: head.statusCode, headers: head.headers, group: group)
            return try await consume(head, body)
        }
    }

    /// Returns when `request` may be sent: at once, or after waiting for the window (asking
    /// again after each wait, as a response meanwhile may have closed it further).
    ///
    /// - Throws: ``RateLimitedError`` when the wait would be too long; `CancellationError`.
    private nonisolated(nonsending) func waitForWindow(_ request: HTTPRequest, group: String) async throws {
        let started = clock.elapsed()
        var clientLimit = policy.clientLimit
        while true {
            let now = clock.elapsed()
            let maxWait = policy.effectiveMaxWait - (now - started)
            let timeLeft = RequestDeadline.remaining
            let admission = windows.withState(for: group) {
                $0.admit(now: now, clientLimit: clientLimit, maxWait: maxWait, timeLeft: timeLeft)
            }
            // The token, if any, is reserved by the first decision; later ones only re-check the window.
            clientLimit = nil
            switch admission {
            case .proceed:
                return
            case .wait(let wait, let source):
                TransportEvents.emit(
                    RateLimitEvent.held(group: group, duration: wait, source: source, method: request.method, url: request.url))
                try await clock.sleep(for: wait)
                // A clock may return from a sleep normally although the task was cancelled.
                try Task.checkCancellation()
            case .reject(let reopensIn, let source, let limit):
                TransportEvents.emit(
                    RateLimitEvent.rejected(group: group, reopensIn: reopensIn, source: source, method: request.method, url: request.url))
                throw RateLimitedError(
                    group: group, reopensIn: reopensIn, source: source, limit: limit, method: request.method, url: request.url,
                    retryAt: wallClockOrigin.addingTimeInterval((now + reopensIn).inSeconds))
            }
        }
    }

    /// Closes the window of `group` when the response's fields say so.
    private nonisolated(nonsending) func record(statusCode: Int, headers: HTTPHeaders, group: String) async {
        let now = clock.elapsed()
        guard
            let hold = RateLimitHeaders.hold(
                statusCode: statusCode, headers: headers, now: wallClockOrigin.addingTimeInterval(now.inSeconds))
        else { return }
        let maxHold = policy.effectiveMaxHold
        guard let applied = windows.withState(for: group, { $0.close(for: hold.duration, source: hold.source, now: now, maxHold: maxHold) })
        else { return }
        // Reported as the send that produced the response, which a layer below may have resent.
        await TransportEvents.withLatestAttempt {
            TransportEvents.emit(
                RateLimitEvent.windowClosed(
                    group: group, duration: applied, requested: hold.duration, source: hold.source, statusCode: statusCode))
        }
    }
}

extension TransportLayer {
    /// A ``RateLimitTransport`` layer, for a ``/Strata/TransportStack``.
    public static func rateLimit(
        policy: RateLimitPolicy = RateLimitPolicy(), partition: RequestPartition = .origin,
        clock: some Clock<Duration> = ContinuousClock()
    ) -> TransportLayer {
        TransportLayer { RateLimitTransport(inner: $0, policy: policy, partition: partition, clock: clock) }
    }
}

extension RateLimitTransport: CacheIdentityProviding {
    /// The client identity `inner` reports for `url`, or `nil` when it reports none or does not
    /// conform: this layer never changes which certificate a request is sent with.
    public func cacheIdentity(for url: URL) -> String? {
        cacheIdentities?.cacheIdentity(for: url)
    }
}

extension RateLimitTransport: EventObservationScope {
    /// Whether `inner` may observe events: this layer installs no observer and begins no
    /// logical request of its own.
    package var mayObserveEvents: Bool { innerMayObserve }
}
