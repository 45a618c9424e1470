import Strata

/// Something a pooled connection did for the job it runs, collected on the connection's thread
/// (``JobEvents``) and handed to the caller's task in the job's report, where the transport
/// reports it on its event channel. The pool speaks of connections only; what each case means
/// to a reader of the logs is told by the transport's event it becomes.
enum ConnectionEvent: Sendable, Hashable {
    /// A new connection completed its TLS handshake in `duration`.
    case connectionOpened(host: String, port: Int, tlsVersion: String, duration: Duration)
    /// The TCP connection went to `address` after `attempts` tries (the proxy's, through a tunnel).
    case addressConnected(host: String, address: String, attempts: Int)
    /// The connection goes through a `CONNECT` tunnel of `proxy` (its URL without credentials).
    case tunnelOpened(proxy: String, host: String, port: Int)
    /// Report-only pins did not match; the request went ahead.
    case pinMismatchReported(host: String, servedPins: [String], failure: String)
    /// A kept connection carries the job.
    case connectionReused(host: String, port: Int)
    /// A connection was closed instead of kept, for `reason`.
    case connectionDiscarded(host: String, port: Int, reason: String)
    /// The peer's chain was evaluated: the pin that matched, or why it was refused.
    case trustEvaluated(host: String, matchedPin: String?, failure: String?)
    /// A kept connection failed before any response byte; the job goes again on a new one.
    case retryingOnFreshConnection(host: String, port: Int, reason: String)
    /// What the HTTP/1.1 client did on the connection to `host`.
    case http1(HTTP1Event, host: String)
}
