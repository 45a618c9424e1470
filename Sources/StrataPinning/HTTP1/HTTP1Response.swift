import Foundation
import Strata

/// One complete HTTP/1.x response as ``HTTP1ResponseParser`` read it, with the framing facts
/// the connection needs to decide whether it can be reused.
struct HTTP1Response: Sendable, Equatable {
    /// The protocol version of the status line.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    // The underscore keeps the version's dot readable: `http10` would read as "HTTP ten".
    enum Version: Sendable, Equatable {
        case http1_0
        case http1_1
    }

    /// How the body's end was found (RFC 9112 §6.3).
    enum Framing: Sendable, Equatable {
        /// No body: a response to `HEAD`, a `204` or a `304`.
        case none
        /// Exactly this many bytes, from `Content-Length`.
        case contentLength(Int)
        /// `Transfer-Encoding: chunked`.
        case chunked
        /// Everything until the server closed the connection.
        case untilClose
    }

    var version: Version
    var statusCode: Int
    var headers: HTTPHeaders
    var body: Data
    /// Fields from a chunked body's trailer section, kept apart from `headers` because RFC 9110
    /// §6.5.1 forbids merging them unless each field is known to be allowed there.
    var trailers: HTTPHeaders
    var framing: Framing
    /// Whether the connection may carry another request after this response: HTTP/1.1 unless
    /// `Connection: close`, HTTP/1.0 only with `Connection: keep-alive`, never after a
    /// close-delimited body or a message carrying both `Transfer-Encoding` and `Content-Length`.
    var keepAlive: Bool
    /// Status codes of the interim `1xx` responses skipped before this one, in order.
    var interimStatusCodes: [Int]

    /// The body's length when `Content-Length` gave it (0 for no body); nil otherwise.
    var bodyLength: Int64? {
        switch framing {
        case .none: 0
        case .contentLength(let length): Int64(length)
        case .chunked, .untilClose: nil
        }
    }

    /// The response as Strata's value type, answering `url`.
    func httpResponse(url: URL?) -> HTTPResponse {
        HTTPResponse(statusCode: statusCode, headers: headers, body: body, url: url)
    }
}
