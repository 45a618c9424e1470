import Foundation

/// A pinned server refused the TLS connection over its client certificate (mutual TLS).
/// ``PinningTransport`` throws it as the `underlying` error of a `TransportError` of kind
/// ``/Strata/TransportError/Kind/tls`` (never retried), read from the TLS alert the server sent.
public enum ClientAuthenticationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server requires a client certificate and none is configured for `host` (TLS 1.3
    /// alert `certificate_required`, or a TLS 1.2 `handshake_failure` after the server asked for one).
    case certificateRequired(host: String)
    /// The server did not accept the client certificate `subject`; `alert` is the TLS alert it
    /// sent (`unknown_ca`, `bad_certificate`, `certificate_expired`, `access_denied`, ...).
    case certificateRefused(host: String, subject: String, alert: String)

    /// The host that refused.
    public var host: String {
        switch self {
        case let .certificateRequired(host), let .certificateRefused(host, _, _): host
        }
    }

    /// What the server said, and what to configure.
    public var description: String {
        switch self {
        case let .certificateRequired(host):
            "\(host) requires a client certificate (mutual TLS), and none is configured for it: add a ClientIdentity "
                + "for its pattern to PinningTransport.Configuration.clientIdentities."
        case let .certificateRefused(host, subject, alert):
            "\(host) refused the client certificate \(subject) (TLS alert \(alert)): check that it was issued by a CA "
                + "the server trusts for clients, that it is valid now, and that it allows client authentication."
        }
    }
}

extension ClientAuthenticationError: LocalizedError {
    /// The same text as `description`.
    public var errorDescription: String? { description }
}
