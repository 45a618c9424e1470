import Foundation
import Strata

/// One complete response read from an HTTP/2 stream.
struct HTTP2Response: Sendable, Equatable {
    var statusCode: Int
    var headers: HTTPHeaders
    var body: Data
    /// Fields of a trailing header block, kept apart from `headers` (RFC 9110 §6.5.1), as the
    /// HTTP/1.1 parser keeps a chunked body's trailers.
    var trailers: HTTPHeaders
    /// Status codes of the interim `1xx` responses skipped before this one, in order.
    var interimStatusCodes: [Int]

    /// The response as Strata's value type, answering `url`.
    func httpResponse(url: URL?) -> HTTPResponse {
        HTTPResponse(statusCode: statusCode, headers: headers, body: body, url: url)
    }
}

/// A request an HTTP/2 stream could not complete, with what the client needs to decide whether
/// to send it again on a new connection.
struct HTTP2StreamFailure: Error, Sendable, CustomStringConvertible {
    /// The failure as callers see it.
    var error: TransportError
    /// The server provably did not process the request (RFC 9113 §8.7: its stream is above a
    /// GOAWAY's last stream identifier, was refused with REFUSED_STREAM, or was never sent), so
    /// it may be sent again whatever its method. Never set once a response head arrived.
    var unprocessed = false
    /// Whether any part of a response (a header block) arrived before the failure.
    var receivedResponseBytes = false
    /// The failure was the connection's (closed, silent), not a verdict on this stream: with no
    /// response byte seen, the request's fate is unknown, as for a reused HTTP/1.1 connection.
    var connectionFailed = false

    var description: String { error.description }
}
