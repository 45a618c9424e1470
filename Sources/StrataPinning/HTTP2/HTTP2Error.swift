import Foundation

/// Why the HTTP/2 client could not deliver a response: the server reset the stream or ended the
/// connection, broke the protocol, went silent, or sent more than the configured ``HTTPLimits``.
///
/// It is the `underlying` error of the `TransportError` a request throws, so callers see the same
/// `TransportError` kinds whichever protocol carried the request: ``/Strata/TransportError/Kind/connectionLost``
/// for resets, GOAWAY and silence (transient), ``/Strata/TransportError/Kind/invalidResponse`` for protocol
/// violations and exceeded limits.
public enum HTTP2Error: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server reset the stream (RST_STREAM) before the response was complete.
    case streamReset(HTTP2ErrorCode)
    /// The server ended the connection (GOAWAY) before the response was complete; `debug` is
    /// the server's debug text, quoted and escaped.
    case goAway(HTTP2ErrorCode, debug: String)
    /// The connection closed (TCP or TLS) before the response was complete.
    case connectionClosed
    /// The server broke the HTTP/2 protocol (RFC 9113 §5.4.1); the client ended the connection
    /// with `code`, failing every request on it. `reason` is nghttp2's description.
    case connectionError(HTTP2ErrorCode, reason: String)
    /// The server's frames for this request were not a valid HTTP response (RFC 9113 §8.1.1),
    /// such as a missing `:status` or a `content-length` that does not match the body.
    case malformedResponse(reason: String)
    /// A header block was larger than ``HTTPLimits/maxHeaderBlockBytes`` (counted as RFC 9113
    /// §6.5.2 does: name and value octets plus 32 per field).
    case headerListTooLarge(limit: Int)
    /// A header block had more fields than ``HTTPLimits/maxHeaderCount``.
    case tooManyHeaders(limit: Int)
    /// More interim `1xx` responses arrived than ``HTTPLimits/maxInterimResponses``.
    case tooManyInterimResponses(limit: Int)
    /// The body exceeded ``HTTPLimits/maxResponseBodyBytes`` (or `content-length` announced more).
    case bodyTooLarge(limit: Int)
    /// The connection received nothing, not even the answer to a PING, for `silence`
    /// (twice ``PinningTransport/Configuration/http2PingInterval``): it is considered dead.
    case pingUnanswered(silence: Duration)

    /// What happened, and what to look at next.
    public var description: String {
        switch self {
        case let .streamReset(code):
            "the server reset the stream (RST_STREAM \(code)) before the response was complete"
        case let .goAway(code, debug):
            "the server closed the HTTP/2 connection (GOAWAY \(code)\(debug.isEmpty ? "" : ", \(debug)")) "
                + "before the response was complete"
        case .connectionClosed:
            "the HTTP/2 connection closed before the response was complete"
        case let .connectionError(code, reason):
            "the server broke the HTTP/2 protocol (\(reason)); the connection was closed with \(code) "
                + "and every request on it failed"
        case let .malformedResponse(reason):
            "the server's HTTP/2 response was malformed (\(reason))"
        case let .headerListTooLarge(limit):
            "the response's header list exceeded \(limit) bytes (HTTPLimits.maxHeaderBlockBytes)"
        case let .tooManyHeaders(limit):
            "the response had more than \(limit) header fields (HTTPLimits.maxHeaderCount)"
        case let .tooManyInterimResponses(limit):
            "more than \(limit) interim 1xx responses (HTTPLimits.maxInterimResponses)"
        case let .bodyTooLarge(limit):
            "the response body exceeded \(limit) bytes (HTTPLimits.maxResponseBodyBytes; raise it for large downloads)"
        case let .pingUnanswered(silence):
            "the HTTP/2 connection received nothing for \(silence), not even a PING answer, and was closed "
                + "(PinningTransport.Configuration.http2PingInterval)"
        }
    }
}

extension HTTP2Error: LocalizedError {
    /// The same text as `description`, so `localizedDescription` says what happened and what
    /// to look at instead of "The operation could not be completed".
    public var errorDescription: String? { description }
}
