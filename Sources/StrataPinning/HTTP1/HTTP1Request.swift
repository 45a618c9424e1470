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
}
