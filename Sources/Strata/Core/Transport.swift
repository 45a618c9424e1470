#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// A thing that sends one HTTP request and returns its response: the single abstraction every
/// Strata layer is built on.
///
/// There are two kinds of transport:
/// - A **terminal transport** moves bytes: ``URLSessionTransport`` (and, in `StrataPinning`,
///   `PinningTransport` for pinned hosts) or a canned transport in tests.
/// - A **decorator** holds an `inner` transport and adds exactly one behaviour: retrying
///   (``RetryTransport``), refreshing a token (``ReauthTransport``), answering conditional GETs
///   from a store (``ETagTransport``), logging. No decorator knows about another one.
///
/// Requests travel from the outermost decorator inwards; responses and errors travel back
/// outwards. The recommended order, outermost first, is
/// `ReauthTransport → RetryTransport → ETagTransport → PinningTransport → URLSessionTransport`,
/// so that one 401 causes one refresh (not one per retry), a 304 is a success that is never
/// retried, and the cache works the same whatever carries the bytes.
///
/// ## Contract
/// - Any HTTP status, including 4xx and 5xx, is a *response*, not an error. Deciding that a
///   status is a failure is the job of ``HTTPNetworkService``.
/// - Failures to obtain a response throw: ``TransportError`` for network failures, another typed
///   error for a layer's own failure, and `CancellationError` when the calling task is cancelled.
/// - Implementations are `Sendable` and may be called from many tasks at once.
/// - A decorator keeps its inner transport in `public let inner`, so a stack can be inspected.
///
/// ## Writing a layer
/// - **Events.** Report what your layer does with ``TransportEvents/emit(_:)``, with a
///   ``TransportEvent`` enum of your own (the core's types, such as ``RetryEvent``, are the
///   model). Emit in the task that called `send`: observers are task-local, so a thread of your
///   own cannot reach them; collect events there (only when ``TransportEvents/isObserved``) and
///   emit them when the work comes back. `emit` takes an autoclosure: with no observer above,
///   nothing is built. Every ``ObservingTransport`` and ``LoggingTransport`` above sees your
///   events, with no registration.
/// - **Request identifiers.** Every event of one logical request carries the same identifier.
///   If your layer may send a request more than once, wrap your whole `send` in
///   ``TransportEvents/withinRequest(_:)`` so the sends below share one identifier even when
///   nothing above observes.
/// - **Attempt numbers.** Wrap each *resend* (not the first send) in
///   ``TransportEvents/withNextAttempt(_:)``: attempt numbers then rise by one per send across
///   every layer of the stack, and a logger below your layer logs each send as its own attempt.
/// - **Your own requests.** Work your layer does on its own behalf, such as fetching a token,
///   runs in ``TransportEvents/detached(_:)`` so it is not reported as part of the request that
///   triggered it.
/// - **Time.** Take `clock: some Clock<Duration> = ContinuousClock()` for anything you wait for
///   or measure, so tests pass `TestClock` (StrataTesting) and never wait for real.
///
/// The full guide, with a complete layer and its test, is `docs/writing-a-layer.md`.
///
/// ## Example
/// A decorator that adds a header to every request:
/// ```swift
/// struct UserAgentTransport: Transport {
///     let inner: any Transport
///     let userAgent: String
///
///     func send(_ request: HTTPRequest) async throws -> HTTPResponse {
///         var request = request
///         request.headers["User-Agent"] = userAgent
///         return try await inner.send(request)
///     }
/// }
/// ```
///
/// ## Buffered and streamed
/// ``send(_:)`` returns the whole body in ``HTTPResponse/body``, within the transport's limits:
/// the right call for API responses. ``stream(_:_:)`` hands the response head and then its body
/// as it arrives. A layer that does not implement `stream` gets a default built on `send`
/// (buffered), so every transport can be called either way.
public protocol Transport: Sendable {
    /// Sends `request` and returns the response the server gave, whatever its status, with its
    /// whole body.
    ///
    /// - Parameter request: The request to send. Its URL must be absolute (`http` or `https`).
    /// - Returns: The response, after every behaviour this transport adds.
    /// - Throws: ``TransportError`` when no response could be obtained, `CancellationError` when
    ///   the calling task was cancelled, or the layer's own typed error.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse

    /// Sends `request` and calls `consume` once with the final response's head and its body.
    ///
    /// The response is released when `consume` returns or throws, whether or not it read the
    /// whole body. Layers decide on the head (a retry, a token refresh, a redirect) before
    /// `consume` is called, so `consume` sees exactly one response.
    ///
    /// - Parameters:
    ///   - request: The request to send. Its URL must be absolute (`http` or `https`).
    ///   - consume: Reads the response; what it returns is returned.
    /// - Returns: What `consume` returned.
    /// - Throws: What ``send(_:)`` throws, and what `consume` or reading the body throws.
    func stream<Result: Sendable>(
        _ request: HTTPRequest,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result
}

extension Transport {
    /// Sends `request` with ``send(_:)`` and hands its buffered body to `consume`: the default for
    /// layers that do not stream.
    public func stream<Result: Sendable>(
        _ request: HTTPRequest,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        let response = try await send(request)
        return try await consume(response.head, HTTPBody(response.body))
    }

    /// Sends a Foundation `URLRequest`, converted once with ``HTTPRequest/init(_:)``: code that
    /// holds `URLRequest`s calls any transport unchanged.
    ///
    /// - Throws: ``TransportError`` of kind ``TransportError/Kind/invalidRequest`` when the request
    ///   has no absolute `http` or `https` URL, and what ``send(_:)`` throws.
    public func send(_ request: URLRequest) async throws -> HTTPResponse {
        try await send(HTTPRequest(request))
    }
}
