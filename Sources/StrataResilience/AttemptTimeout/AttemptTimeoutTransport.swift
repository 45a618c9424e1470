#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata

/// A decorator that gives each attempt its own time limit, apart from the whole request's
/// ``/Strata/RequestDeadline``: an attempt that takes longer is cancelled and fails with a
/// ``/Strata/TransportError`` of kind ``/Strata/TransportError/Kind/timedOut``, which ``/Strata/RetryTransport`` above
/// retries while the whole deadline leaves time.
///
/// Without it, a request whose first attempt hangs spends its whole deadline on that attempt,
/// and the retry layer never gets to try again. With it, a 10 s deadline and a 2 s attempt
/// timeout give a hung call up to four more tries.
///
/// ## Where it goes
/// Inside ``/Strata/RetryTransport`` (and inside a ``CircuitBreakerTransport``, so an attempt that times
/// out counts as a failure), as in Polly's standard pipeline (total timeout → retry → circuit
/// breaker → attempt timeout):
/// ```swift
/// let stack = TransportStack(
///     .retry(policy: RetryPolicy(maxRetries: 3)),
///     .circuitBreaker(),
///     .attemptTimeout(.seconds(2)),
///     terminal: URLSessionTransport())
/// let todos = try await RequestDeadline.withTimeout(.seconds(10)) { try await stack.send(request) }
/// ```
///
/// ## Contract
/// - `send`: the whole exchange, body included, must end within the timeout.
/// - `stream`: the response head must arrive within the timeout; the body then takes as long as
///   it takes, bounded by the request's deadline (a download is not cut at 2 s).
/// - A timed-out attempt is cancelled below: its transport stops and closes its connection.
/// - The whole-request deadline still applies inside: whichever ends first stops the attempt.
public struct AttemptTimeoutTransport: Transport {
    /// The transport each attempt is sent through.
    public let inner: any Transport
    /// `inner`, when it reports client identities (looked up once, not per request).
    private let cacheIdentities: (any CacheIdentityProviding)?
    /// The longest one attempt may take.
    public let timeout: Duration
    private let clock: ErasedClock

    /// Creates a per-attempt timeout.
    ///
    /// - Parameters:
    ///   - inner: The transport each attempt is sent through.
    ///   - timeout: The longest one attempt may take (a negative value is zero).
    ///   - clock: The clock the timeout runs on. Default: `ContinuousClock()`; tests pass a
    ///     `TestClock`.
    public init(inner: any Transport, timeout: Duration, clock: some Clock<Duration> = ContinuousClock()) {
        self.inner = inner
        cacheIdentities = inner as? any CacheIdentityProviding
        self.timeout = max(.zero, timeout)
        self.clock = ErasedClock(clock)
    }

    /// Sends `request`, failing the attempt when it takes longer than ``timeout``.
    ///
    /// - Throws: ``/Strata/TransportError`` of kind ``/Strata/TransportError/Kind/timedOut`` when the attempt
    ///   took too long; otherwise what `inner` throws.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await withThrowingTaskGroup(of: HTTPResponse?.self) { group in
            group.addTask { try await inner.send(request) }
            group.addTask { [clock, timeout] in
                try await clock.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let response = first else {
                // The timer ended first (or the task was cancelled and the timer said so).
                try Task.checkCancellation()
                throw timedOut(request)
            }
            return response
        }
    }

    /// Streams `request`, failing the attempt when its head takes longer than ``timeout``; the
    /// body is read in the calling task, bounded only by the request's deadline.
    ///
    /// - Throws: What ``send(_:)`` throws, and what `consume` throws.
    public func stream<Result: Sendable>(
        _ request: HTTPRequest,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        let exchange = HandedOverExchange.start(request, through: inner)
        let (head, body) = try await withTaskCancellationHandler {
            try await withThrowingTaskGroup(of: (HTTPResponseHead, HTTPBody)?.self) { group in
                group.addTask { try await exchange.response() }
                group.addTask { [clock, timeout] in
                    try await clock.sleep(for: timeout)
                    return nil
                }
                do {
                    guard let first = try await group.next(), let response = first else {
                        // The head is late: stop the exchange, which also ends the waiting child.
                        exchange.cancel()
                        group.cancelAll()
                        try Task.checkCancellation()
                        throw timedOut(request)
                    }
                    group.cancelAll()
                    return response
                } catch {
                    exchange.cancel()
                    throw error
                }
            }
        } onCancel: {
            exchange.cancel()
        }
        do {
            let result = try await consume(head, body)
            exchange.release()
            await exchange.finished()
            return result
        } catch {
            exchange.release()
            await exchange.finished()
            throw error
        }
    }

    private func timedOut(_ request: HTTPRequest) -> TransportError {
        TransportError(
            .timedOut, method: request.method, url: request.url,
            message: "the attempt took longer than its per-attempt timeout of \(timeout.readable) (AttemptTimeoutTransport)")
    }
}

extension TransportLayer {
    /// An ``AttemptTimeoutTransport`` layer, for a ``/Strata/TransportStack``.
    public static func attemptTimeout(_ timeout: Duration, clock: some Clock<Duration> = ContinuousClock()) -> TransportLayer {
        TransportLayer { AttemptTimeoutTransport(inner: $0, timeout: timeout, clock: clock) }
    }
}

extension AttemptTimeoutTransport: CacheIdentityProviding {
    /// The client identity `inner` reports for `url`, or `nil` when it reports none or does not
    /// conform: this layer never changes which certificate a request is sent with.
    public func cacheIdentity(for url: URL) -> String? {
        cacheIdentities?.cacheIdentity(for: url)
    }
}

extension AttemptTimeoutTransport: EventObservationScope {
    package var mayObserveEvents: Bool { TransportEvents.mayBeObserved(within: inner) }
}
