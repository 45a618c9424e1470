#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// A stack of decorators over a terminal transport, written flat, outermost first: the same
/// stack as nesting the initializers, in the order a request travels.
///
/// ```swift
/// let stack = TransportStack(
///     .logging(logger: ConsoleLogger()),                          // structured, redacted logs
///     .reauth(authService: auth, refreshToken: refresh),          // 401 -> one refresh -> resend once
///     .retry(policy: RetryPolicy(maxRetries: 3)),                 // transient failures -> backoff
///     .etag(store: store),                                        // conditional GET, 304 -> stored body
///     terminal: URLSessionTransport())
/// ```
/// is `LoggingTransport(inner: ReauthTransport(inner: RetryTransport(inner: ETagTransport(inner:
/// URLSessionTransport(), store: store), policy: …), …), logger: …)`, each layer's settings beside
/// its name instead of after its whole inner subtree. Both spellings build the same transports;
/// sending through a `TransportStack` costs one extra call.
public struct TransportStack: Transport {
    /// The outermost layer (or the terminal transport, for a stack without layers).
    public let inner: any Transport
    /// `inner`, when it reports client identities (looked up once, not per request).
    private let cacheIdentities: (any CacheIdentityProviding)?

    /// Builds `layers` around `terminal`, the first layer outermost.
    ///
    /// - Parameters:
    ///   - layers: The decorators, in the order a request passes through them.
    ///   - terminal: The transport that moves the bytes, such as ``URLSessionTransport``.
    public init(_ layers: TransportLayer..., terminal: any Transport) {
        self.init(layers: layers, terminal: terminal)
    }

    /// Builds `layers` around `terminal`, the first layer outermost.
    public init(layers: [TransportLayer], terminal: any Transport) {
        inner = layers.reversed().reduce(terminal) { inner, layer in layer.wrapping(inner) }
        cacheIdentities = inner as? any CacheIdentityProviding
    }

    /// Sends `request` through the outermost layer.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await inner.send(request)
    }

    /// Streams `request` through the outermost layer.
    public func stream<Result: Sendable>(
        _ request: HTTPRequest,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        try await inner.stream(request, consume)
    }
}

extension TransportStack: CacheIdentityProviding {
    /// The client identity `inner` reports for `url`, or `nil` when it reports none or does not
    /// conform: this layer never changes which certificate a request is sent with.
    public func cacheIdentity(for url: URL) -> String? {
        cacheIdentities?.cacheIdentity(for: url)
    }
}

extension TransportStack: EventObservationScope {
    package var mayObserveEvents: Bool { TransportEvents.mayBeObserved(within: inner) }
}
