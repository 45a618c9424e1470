import Foundation

/// An HTTP response as a value: status, headers, the whole body and the URL that answered.
///
/// Being a plain `Sendable`, `Hashable` value lets decorators synthesize responses (a 304
/// answered from a store becomes a 200) and lets stores persist them.
///
/// Two responses are equal when the server said the same thing: the same ``statusCode``,
/// ``headers``, ``body`` and ``url``. How the response reached the caller is not part of it:
/// ``source`` and ``retrySummary`` (whose `elapsed` differs on every run) are ignored by `==`
/// and `hash(into:)`, so a response that needed a retry equals the same response sent once.
/// Compare those properties directly when they matter.
public struct HTTPResponse: Sendable, Hashable {
    /// Where a response's body came from.
    public enum Source: String, Sendable, Hashable, Codable {
        /// The body was transferred from the server for this request.
        case network
        /// The server answered `304 Not Modified` and the body came from a local ETag store.
        case revalidated
        /// A fresh stored response answered, with no network at all (RFC 9111 §4.2).
        case fresh
        /// A stale stored response answered without the server's confirmation: the request's
        /// `max-stale` allowed it, or `stale-while-revalidate` (a refresh runs in the
        /// background), or `stale-if-error` (the origin failed).
        case stale
        /// A layer made the response itself, with neither the network nor a stored body: the
        /// `504` that answers `only-if-cached` when nothing usable is stored.
        case generated
    }

    /// The HTTP status code, for example `200`.
    public var statusCode: Int
    /// The response's header fields, case-insensitive and in the order received.
    public var headers: HTTPHeaders
    /// The complete response body; empty when the response had none.
    public var body: Data
    /// The URL that produced the response (after redirects), when known.
    public var url: URL?
    /// Where the body came from; ``Source/network`` unless a layer such as `ETagTransport`
    /// answered it from a store.
    public var source: Source
    /// How many times a ``RetryTransport`` sent the request, and for how long, when it sent it
    /// more than once; `nil` otherwise.
    public var retrySummary: RetrySummary?

    /// Creates a response.
    public init(statusCode: Int, headers: HTTPHeaders = [:], body: Data = Data(), url: URL? = nil) {
        self.init(statusCode: statusCode, headers: headers, body: body, url: url, source: .network)
    }

    /// Creates a response, stating where its body came from.
    package init(statusCode: Int, headers: HTTPHeaders, body: Data, url: URL?, source: Source) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.url = url
        self.source = source
    }

    /// The status, headers and URL, without the body.
    package var head: HTTPResponseHead { HTTPResponseHead(statusCode: statusCode, headers: headers, url: url) }

    /// Whether the status is in the 2xx range.
    public var isSuccess: Bool { (200..<300).contains(statusCode) }

    /// The body decoded as UTF-8 text, or `nil` if it is not valid UTF-8.
    public var text: String? { String(data: body, encoding: .utf8) }
}

extension HTTPResponse {
    /// Whether both responses carry the same status, headers, body and URL; ``source`` and
    /// ``retrySummary`` describe the delivery, not the response, and are not compared.
    public static func == (lhs: HTTPResponse, rhs: HTTPResponse) -> Bool {
        lhs.statusCode == rhs.statusCode && lhs.headers == rhs.headers && lhs.body == rhs.body && lhs.url == rhs.url
    }

    /// Hashes what `==` compares: status, headers, body and URL.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(statusCode)
        hasher.combine(headers)
        hasher.combine(body)
        hasher.combine(url)
    }
}

extension HTTPResponse: CustomStringConvertible {
    /// A one-line summary: status, URL (secrets redacted, see ``Redaction``) and body size.
    /// Never includes the body itself.
    public var description: String {
        "HTTP \(statusCode) from \(url.map { Redaction().redact($0) } ?? "<unknown URL>") (\(body.count) bytes)"
            + (retrySummary.map { " \($0)" } ?? "")
    }
}
