import Strata

/// An exchange on an ``HTTP1Connection`` that failed, with the facts a connection pool needs to
/// decide whether the request may be sent again on a fresh connection.
struct HTTP1ExchangeError: Error, CustomStringConvertible {
    /// The failure as Strata reports it to callers.
    var error: TransportError
    /// Whether any byte of a response arrived before the failure. On a reused connection, a
    /// failure with no response byte is how a server that closed the idle connection shows up,
    /// and an idempotent request may then be retried once on a fresh connection (RFC 9112 §9.3.1).
    var receivedResponseBytes: Bool

    /// The transport error's description.
    var description: String { error.description }
}
