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
///
/// ## Example
/// A decorator that adds a header to every request:
/// ```swift
/// struct UserAgentTransport: Transport {
///     let inner: any Transport
///     let userAgent: String
///
///     func send(_ request: URLRequest) async throws -> HTTPResponse {
///         var request = request
///         request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
///         return try await inner.send(request)
///     }
/// }
/// ```
public protocol Transport: Sendable {
    /// Sends `request` and returns the response the server gave, whatever its status.
    ///
    /// - Parameter request: The request to send. Its URL must be absolute (`http` or `https`).
    /// - Returns: The response, after every behaviour this transport adds.
    /// - Throws: ``TransportError`` when no response could be obtained, `CancellationError` when
    ///   the calling task was cancelled, or the layer's own typed error.
    func send(_ request: URLRequest) async throws -> HTTPResponse
}
