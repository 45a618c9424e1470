import Foundation

/// An HTTP request as a value: what every ``Transport`` sends.
///
/// A plain `Sendable` value, cheap to copy and to change: a layer adds a header with
/// `request.headers["If-None-Match"] = tag` and passes it on. Its ``body`` may stream; whether a
/// layer may send the request again is ``HTTPBody/isReplayable``.
///
/// ```swift
/// var request = HTTPRequest(url: URL(string: "https://api.example.com/v1/users")!)
/// request.headers["Accept"] = "application/json"
/// let response = try await transport.send(request)
/// ```
///
/// Code that holds a Foundation `URLRequest` converts it once, at the edge, with
/// ``init(_:)`` (or calls `send(_: URLRequest)` on any transport); ``urlRequest`` converts back.
public struct HTTPRequest: Sendable {
    /// The method, such as `GET`.
    public var method: HTTPMethod
    /// The absolute `http` or `https` URL the request is for. A terminal transport refuses any
    /// other URL with ``TransportError/Kind/invalidRequest``.
    public var url: URL
    /// The header fields, case-insensitive and in order. `Content-Length` is set by the terminal
    /// from ``body`` and need not be given.
    public var headers: HTTPHeaders
    /// The body, or `nil` for none.
    public var body: HTTPBody?

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - method: The method; `GET` by default.
    ///   - url: An absolute `http` or `https` URL.
    ///   - headers: The header fields.
    ///   - body: The body, or `nil` for none.
    public init(method: HTTPMethod = .get, url: URL, headers: HTTPHeaders = [:], body: HTTPBody? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// Whether the request can be sent again: it has no body, or a replayable one.
    public var isReplayable: Bool { body?.isReplayable ?? true }
}
