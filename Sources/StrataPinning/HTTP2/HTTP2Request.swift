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

    private static let connectionSpecific: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "upgrade",
        "transfer-encoding",
    ]

    /// Frames `request` for HTTP/2 (see ``init(_:body:)``).
    ///
    /// - Throws: ``HTTPRequestError`` when the request cannot be sent unambiguously.
    init(_ request: HTTPRequest) throws(HTTPRequestError) {
        self.init(try ValidatedRequestHead(request, bodyLength: ValidatedRequestHead.bodyLength(of: request)), body: request.body)
    }

    /// Frames `head`, checked for `body`'s length, with `body`: sent from memory when it is held
    /// in memory; a file or stream goes through a new ``HTTP2RequestBodyPipe``, read only as
    /// nghttp2 asks for DATA frames.
    init(_ head: ValidatedRequestHead, body: HTTPBody?) {
        let framed: HTTP2RequestBody
        switch body {
        case nil: framed = .bytes([])
        case let body?:
            if let bytes = body.bytesInMemory {
                framed = .bytes(bytes[...])
            } else {
                framed = .streamed(HTTP2RequestBodyPipe(body, method: head.method, url: head.url), length: body.length)
            }
        }
        self.init(head, framedBody: framed)
    }

    private init(_ head: ValidatedRequestHead, framedBody body: HTTP2RequestBody) {
        method = head.method
        url = head.url
        self.body = body
        fields = [
            HTTP2Field(name: ":method", value: head.method.rawValue),
            HTTP2Field(name: ":scheme", value: "https"),
            HTTP2Field(name: ":authority", value: head.authority),
            HTTP2Field(name: ":path", value: head.target),
        ]
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

    /// The request to send again after its stream failed unprocessed, or nil when its body
    /// cannot be sent again: a body in memory is reused; a file or stream needs a new pipe, and
    /// a single-pass body whose reading started (some of it may have gone out) is never resent.
    /// Call it once the failed stream is over (its pipe closed), so reading cannot start later.
    func forResend() -> HTTP2Request? {
        guard case let .streamed(pipe, length) = body else { return self }
        pipe.close()
        guard pipe.isReplayable || !pipe.hasStarted else { return nil }
        var resent = self
        resent.body = .streamed(HTTP2RequestBodyPipe(pipe.body, method: method, url: url), length: length)
        return resent
    }
}

/// Where an HTTP/2 request's body comes from.
enum HTTP2RequestBody: Sendable {
    /// Bytes in memory, framed straight from them (empty: no body, END_STREAM on the HEADERS).
    case bytes(ArraySlice<UInt8>)
    /// A file or stream read as DATA frames go out, `length` bytes when known.
    case streamed(HTTP2RequestBodyPipe, length: Int64?)

    /// The body's length, when known before it is sent.
    var length: Int64? {
        switch self {
        case let .bytes(bytes): Int64(bytes.count)
        case let .streamed(_, length): length
        }
    }
}
