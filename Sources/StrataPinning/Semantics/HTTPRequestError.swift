import Strata

/// A request the pinned HTTP clients (HTTP/1.1 and HTTP/2 alike) refused to send because it cannot be
/// written unambiguously.
///
/// Nothing was written to the network when this is thrown. Each case says what to change.
enum HTTPRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request has no URL, or its URL has no host.
    case missingHost
    /// The URL's scheme is not `http` or `https`.
    case unsupportedScheme(String)
    /// The method is not an RFC 9110 token, or is `CONNECT`, which needs a tunnel this client
    /// does not provide.
    case unsupportedMethod(String)
    /// A header name or value would break the message (see `HTTPHeaders.validate(name:value:)`).
    case invalidHeader(HTTPHeaderError)
    /// The caller set a header that this client owns because it frames the message or names the
    /// connection, with a value that contradicts the request (see ``HTTP1RequestEncoder``).
    case conflictingHeader(name: String, value: String, reason: String)
    /// The body could not be read.
    case unreadableBody(HTTPBodyError)

    /// What is wrong with the request and how to fix it.
    var description: String {
        switch self {
        case .missingHost:
            "The request has no absolute URL with a host; nothing was sent."
        case .unsupportedScheme(let scheme):
            "The URL scheme \(scheme.debugDescription) is not supported; use http or https."
        case .unsupportedMethod(let method):
            "The method \(method.debugDescription) cannot be sent: it must be an RFC 9110 token other than CONNECT."
        case .invalidHeader(let error):
            error.description
        case .conflictingHeader(let name, let value, let reason):
            "The header \(name): \(value.debugDescription) was refused: \(reason). Nothing was sent."
        case .unreadableBody(let error):
            "The request body could not be read: \(error.description). Nothing was sent."
        }
    }
}
