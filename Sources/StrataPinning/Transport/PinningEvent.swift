import Foundation
import Strata

/// Something ``PinningTransport`` did, reported to the `onEvent` hook given at creation (for a
/// logging layer, metrics or a test).
///
/// Events about connections are reported on the connection's own thread, others on the caller's
/// task; keep the hook quick and thread-safe. Independently, the transport reports
/// `TransportEvent.Kind.connection` and `.pinCheck` through `TransportEvents` to an enclosing
/// `LoggingTransport`.
public enum PinningEvent: Sendable {
    /// A request for a host that no `pinnedDomains` pattern matches went to the inner transport.
    case sentToInner(url: URL?)
    /// A new TLS connection completed its handshake (`tlsVersion` such as `TLSv1.3`) in `duration`,
    /// connect included. Its trust check follows at once, before any request byte.
    case connectionOpened(host: String, port: Int, tlsVersion: String, duration: Duration)
    /// An idle keep-alive connection passed its liveness check and carries the next request.
    case connectionReused(host: String, port: Int)
    /// An idle connection was closed instead of reused: the server closed it or sent something
    /// unasked, it was idle past the pool's expiry, or its thread retired it.
    case connectionDiscarded(host: String, port: Int, reason: String)
    /// The verified chain was evaluated: `matchedPin` is the pin that matched (when the evaluator
    /// can tell, as the pin evaluators can), `failure` the reason it was refused.
    case trustEvaluated(host: String, matchedPin: String?, failure: String?)
    /// An idempotent request failed on a reused connection before any response byte arrived
    /// (the server had closed it), and is sent once more on a fresh connection (RFC 9112 §9.3.1).
    case retryingOnFreshConnection(host: String, port: Int, reason: String)
    /// A redirect from a pinned host is being followed.
    case redirected(from: URL, to: URL, statusCode: Int)
    /// What the HTTP/1.1 client did on a connection to `host`.
    case http(host: String, HTTP1Event)
    /// What the HTTP/2 client did on a connection to `host`.
    case http2(host: String, HTTP2Event)
}
