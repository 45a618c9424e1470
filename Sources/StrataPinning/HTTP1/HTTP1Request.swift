import Foundation
import Strata

/// A request serialized for HTTP/1.1 and ready to be written in one piece.
struct HTTP1Request: Sendable {
    /// The method, which tells the parser whether the response can have a body.
    var method: HTTPMethod
    /// The URL the request was made from, for error messages.
    var url: URL?
    /// The request head followed by the body.
    var bytes: [UInt8]
    /// Whether the request said `Connection: close`, so the connection ends after the response.
    var closesConnection: Bool
    /// Where the body starts in ``bytes``.
    var bodyStart: Int
    /// How a body written after the head is framed, when the body is not in ``bytes`` (a file
    /// or a stream); nil when ``bytes`` holds the whole request.
    var streamedBody: StreamedBody? = nil

    /// The framing of a body that is written from its ``HTTPBody`` after the head.
    enum StreamedBody: Sendable, Equatable {
        /// `Content-Length`: exactly this many bytes follow.
        case contentLength(Int64)
        /// `Transfer-Encoding: chunked` (RFC 9112 §7.1): the length is not known in advance.
        case chunked

        /// The length when known.
        var length: Int64? {
            if case .contentLength(let length) = self { return length }
            return nil
        }
    }

    /// The body, sharing ``bytes``'s storage.
    var body: ArraySlice<UInt8> { bytes[bodyStart...] }
}
