#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// A decorator that hands you every ``TransportEvent`` of the requests it sends: the events of
/// every layer below it, and a ``RequestEvent`` for the start and the outcome of each request at
/// its own place in the stack.
///
/// It is how you observe a stack (for metrics, tracing, a test, a demo); ``LoggingTransport`` is
/// built the same way. Put it outermost to see each logical request once plus everything below:
/// ```swift
/// let stack = ObservingTransport(inner: ReauthTransport(inner: RetryTransport(inner: URLSessionTransport()),
///                                                       authService: auth, refreshToken: refresh)) { observed in
///     switch observed.event {
///     case let retry as RetryEvent: metrics.count("retries", tags: [retry.name])
///     case let refresh as ReauthEvent: print(observed.requestID, observed.attempt, refresh)
///     default: break
///     }
/// }
/// ```
///
/// Observers stack: several `ObservingTransport`s and `LoggingTransport`s in one stack each see
/// every event emitted below them, and each sees only its own ``RequestEvent``s. The observer is
/// called synchronously on the path of the request, from whichever task emits (cancellation
/// and token refreshes included); keep it quick, and never block in it.
public struct ObservingTransport: Transport {
    /// The transport that sends the requests.
    public let inner: any Transport
    /// `inner`, when it reports client identities (looked up once, not per request).
    private let cacheIdentities: (any CacheIdentityProviding)?
    private let observer: @Sendable (ObservedEvent) -> Void

    /// Creates an observing decorator.
    ///
    /// - Parameters:
    ///   - inner: The transport to send through.
    ///   - observer: Called with every event of every request sent through this transport.
    public init(inner: any Transport, observer: @escaping @Sendable (ObservedEvent) -> Void) {
        self.inner = inner
        cacheIdentities = inner as? any CacheIdentityProviding
        self.observer = observer
    }

    /// Sends the request through `inner`, reporting its start, its outcome and every event below.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await Self.send(request, through: inner, observer: observer)
    }

    /// Sends `request` through `inner` with `observer` installed, reporting the request's
    /// ``RequestEvent``s to `observer` alone.
    static func send(
        _ request: HTTPRequest, through inner: any Transport,
        observer: @escaping @Sendable (ObservedEvent) -> Void
    ) async throws -> HTTPResponse {
        try await observed(request, by: observer) { report, started in
            let response = try await inner.send(request)
            report(.responded(request, response, duration: .now - started))
            return response
        }
    }

    /// Runs `exchange` with `observer` installed: reports the start, and a failure it throws;
    /// `exchange` reports its outcome through the `report` it is given.
    private static func observed<Result>(
        _ request: HTTPRequest, by observer: @escaping @Sendable (ObservedEvent) -> Void,
        _ exchange: (_ report: (RequestEvent) -> Void, _ started: ContinuousClock.Instant) async throws -> Result
    ) async throws -> Result {
        try await TransportEvents.observing(observer) { context in
            let report = { (event: RequestEvent) in
                observer(ObservedEvent(event: event, requestID: context.requestID, attempt: context.attempt))
            }
            report(.started(request))
            let started = ContinuousClock.now
            do {
                return try await exchange(report, started)
            } catch {
                report(.failed(request, error, duration: .now - started))
                throw error
            }
        }
    }
}

extension ObservingTransport {
    /// Streams the request through `inner`, reporting its start, its head, the end of its body
    /// (bytes read, time taken) and every event below, without holding the body.
    public func stream<Result: Sendable>(
        _ request: HTTPRequest,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        try await Self.stream(request, through: inner, observer: observer, consume)
    }

    /// Streams `request` through `inner` with `observer` installed, reporting the request's
    /// ``RequestEvent``s to `observer` alone.
    static func stream<Result: Sendable>(
        _ request: HTTPRequest, through inner: any Transport,
        observer: @escaping @Sendable (ObservedEvent) -> Void,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        try await observed(request, by: observer) { report, started in
            try await inner.stream(request) { head, body in
                report(.receivedHead(request, head, duration: .now - started))
                let read = LockedValue<Int64>(0)
                let counted = body.tapped { chunk in read.withLock { $0 += Int64(chunk.count) } }
                let result = try await consume(head, counted)
                report(.streamed(request, head, bytes: read.withLock { $0 }, duration: .now - started))
                return result
            }
        }
    }
}

extension TransportLayer {
    /// An ``ObservingTransport`` layer, for a ``TransportStack``.
    public static func observing(_ observer: @escaping @Sendable (ObservedEvent) -> Void) -> TransportLayer {
        TransportLayer { ObservingTransport(inner: $0, observer: observer) }
    }
}

extension ObservingTransport: CacheIdentityProviding {
    /// The client identity `inner` reports for `url`, or `nil` when it reports none or does not
    /// conform: this layer never changes which certificate a request is sent with.
    public func cacheIdentity(for url: URL) -> String? {
        cacheIdentities?.cacheIdentity(for: url)
    }
}

extension ObservingTransport: EventObservationScope {
    /// `true`: it installs an observer.
    package var mayObserveEvents: Bool { true }
}
