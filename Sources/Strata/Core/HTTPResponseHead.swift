import Foundation

/// The status line and header fields of a response, delivered before its body by
/// ``Transport/stream(_:_:)``.
public struct HTTPResponseHead: Sendable, Hashable {
    /// The HTTP status code, for example `200`.
    public var statusCode: Int
    /// The response's header fields, case-insensitive and in the order received.
    public var headers: HTTPHeaders
    /// The URL that produced the response (after redirects), when known.
    public var url: URL?

    /// Creates a response head.
    public init(statusCode: Int, headers: HTTPHeaders = [:], url: URL? = nil) {
        self.statusCode = statusCode
        self.headers = headers
        self.url = url
    }

    /// Whether the status is in the 2xx range.
    public var isSuccess: Bool { (200..<300).contains(statusCode) }
}
