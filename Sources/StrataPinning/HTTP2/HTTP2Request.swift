import Foundation
import Strata

/// A request as HTTP/2 carries it (RFC 9113 §8.3.1): pseudo-header fields, then the caller's
/// fields in lower case, then the body in DATA frames.
///
/// It is made from the `HTTPRequest` itself, checked by ``ValidatedRequestHead`` (the rules the
/// HTTP/1.1 encoder applies), so both protocols accept and refuse exactly the same requests with
/// the same errors. What differs is only framing:
/// - `Host` becomes `:authority`; the target becomes `:path`; `:scheme` is always `https`.
/// - `content-length` states a known body length (a body in memory, or `POST`/`PUT`/`PATCH`
///   without one, as HTTP/1.1 does); a streamed body of unknown length has none: END_STREAM
///   ends it (§8.1).
/// - Connection-specific fields are dropped (RFC 9113 §8.2.2 forbids them and makes a request
///   carrying one malformed): `Connection`, `Keep-Alive`, `Proxy-Connection`, `Upgrade`, and
///   `TE` unless it is exactly `trailers`. They mean nothing on a multiplexed connection.
struct HTTP2Request: Sendable {
    /// The method, for errors, events and the retry rule.
    var method: HTTPMethod
    /// The URL the request was made from, for error messages.
    var url: URL?
    /// The header list: pseudo-header fields first.
    var fields: [HTTP2Field]
    /// The body.
    var body: HTTP2RequestBody

    private static let connectionSpecific: Set<String> = ["connection", "keep-alive", "proxy-connection", "upgrade",
                                                          "transfer-encoding"]

    /// Frames `request` for HTTP/2. A body held in memory is sent from memory; a file or stream
    /// goes through a new ``HTTP2RequestBodyPipe`` that the caller's task then fills
    /// (``HTTP2RequestBodyPipe/feed(from:)``).
    ///
    /// - Throws: ``HTTP1RequestError`` when the request cannot be sent unambiguously.
    init(_ request: HTTPRequest) throws(HTTP1RequestError) {
        let body: HTTP2RequestBody
        switch request.body {
        case nil: body = .bytes([])
        case let some?:
            if let bytes = some.bytesInMemory {
                body = .bytes(bytes[...])
            } else {
                body = .streamed(HTTP2RequestBodyPipe(), length: some.length)
            }
        }
        try self.init(ValidatedRequestHead(request, bodyLength: body.length), body: body)
    }

    /// Frames `head` with `body` (the fields checked for a body of `body.length` bytes).
    init(_ head: ValidatedRequestHead, body: HTTP2RequestBody) {
        method = head.method
        url = head.url
        self.body = body
        fields = [HTTP2Field(name: ":method", value: head.method.rawValue),
                  HTTP2Field(name: ":scheme", value: "https"),
                  HTTP2Field(name: ":authority", value: head.authority),
                  HTTP2Field(name: ":path", value: head.target)]
        for (name, value) in head.fields {
            let lowercased = name.lowercased()
            guard !Self.connectionSpecific.contains(lowercased) else { continue }
            if lowercased == "te", value.trimmingCharacters(in: .whitespaces).lowercased() != "trailers" { continue }
            fields.append(HTTP2Field(name: lowercased, value: value))
        }
        if let length = body.length, length > 0 || ValidatedRequestHead.methodsExpectingBody.contains(method) {
            fields.append(HTTP2Field(name: "content-length", value: String(length)))
        }
    }

    /// Frames an HTTP/1.1-encoded request (the path ``PinnedClient`` used before requests were
    /// framed from `HTTPRequest`); its body is the encoded bytes'.
    init(_ request: HTTP1Request) {
        var fields = request.fields
        fields.removeAll { HTTPHeaders.equal($0.name, "connection") }
        self.init(ValidatedRequestHead(method: request.method, url: request.url ?? URL(fileURLWithPath: "/"),
                                       authority: request.authority, target: request.target, fields: fields,
                                       closesConnection: request.closesConnection),
                  body: .bytes(request.body))
        url = request.url
    }
}

/// Where an HTTP/2 request's body comes from.
enum HTTP2RequestBody: Sendable {
    /// Bytes in memory, framed straight from them (empty: no body, END_STREAM on the HEADERS).
    case bytes(ArraySlice<UInt8>)
    /// Chunks the caller's task hands over as it reads them, `length` bytes when known.
    case streamed(HTTP2RequestBodyPipe, length: Int64?)

    /// The body's length, when known before it is sent.
    var length: Int64? {
        switch self {
        case let .bytes(bytes): Int64(bytes.count)
        case let .streamed(_, length): length
        }
    }
}
