#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata

/// Serializes an `HTTPRequest` as an HTTP/1.1 request message (RFC 9112 §3).
///
/// What goes on the wire, in order:
/// - the request line with the origin-form target: the URL's path (`/` when empty) and query,
///   percent-encoded; never the fragment or user information;
/// - `Host`, with the port when it is not the scheme's default (RFC 9110 §7.2);
/// - the caller's headers, in the request's order, each checked with `HTTPHeaders.validate(name:value:)`
///   so no CR, LF or NUL ever reaches the wire;
/// - `Content-Length` for a body, and `Content-Length: 0` for `POST`, `PUT` and `PATCH` without
///   one (RFC 9110 §8.6: a server may otherwise wait for a body or answer 411); for a streamed
///   body (a file or a stream, written after the head) `Content-Length` when its length is known,
///   `Transfer-Encoding: chunked` when it is not (RFC 9112 §7.1);
/// - `Connection: close` only when the caller asked for it; HTTP/1.1 keeps the connection
///   alive by default;
/// - the body.
///
/// No `Accept-Encoding` is added: this client does not decompress, so it never invites a coded
/// body. A caller may still send one and will receive the coded bytes.
///
/// Headers the encoder owns, because a wrong value would let the caller's bytes be read as a
/// different message than the one this client frames, are checked rather than copied:
/// - `Content-Length` is accepted only if it equals the body's length (it is then written once);
///   for a body of unknown length it is refused;
/// - `Transfer-Encoding` is always refused: the client chooses the framing and writes it itself;
/// - `Host` is accepted only if it equals the URL's authority (ASCII case-insensitively), since
///   a different one would address another virtual host over a connection opened (and, for
///   pinning, verified) for the URL's host;
/// - `Connection` may be `close` or `keep-alive`; other options (such as `upgrade`) are refused
///   because this client does not switch protocols.
///
/// These checks are ``ValidatedRequestHead``'s, which HTTP/2 framing (``HTTP2Request``) shares,
/// so both protocols refuse the same requests with the same ``HTTPRequestError``.
enum HTTP1RequestEncoder {
    /// Serializes `request`'s head for HTTP/1.1: with its body when the body is in memory (written
    /// in one piece), or with the framing of a file or stream body that the connection then writes
    /// from ``HTTPBody`` as it is read (never collected).
    ///
    /// - Returns: The request's bytes and what the connection needs to know about it.
    /// - Throws: ``HTTPRequestError`` when the request cannot be written unambiguously.
    static func encodeStreaming(_ request: HTTPRequest) throws(HTTPRequestError) -> HTTP1Request {
        encodeStreaming(try ValidatedRequestHead(request, bodyLength: ValidatedRequestHead.bodyLength(of: request)), body: request.body)
    }

    /// Serializes `head`, checked for `body`'s length, as ``encodeStreaming(_:)`` does.
    static func encodeStreaming(_ head: ValidatedRequestHead, body: HTTPBody?) -> HTTP1Request {
        guard let body else { return encode(head) }
        if let bytes = body.bytesInMemory { return encode(head, body: bytes) }
        return encode(head, streamedBody: body.length.map { .contentLength($0) } ?? .chunked)
    }

    /// Serializes `request` with `body`, its body's bytes, or with the head only and
    /// `streamedBody`'s framing when the body is written after it.
    ///
    /// - Returns: The request's bytes and what the connection needs to know about it.
    /// - Throws: ``HTTPRequestError`` when the request cannot be written unambiguously.
    static func encode(
        _ request: HTTPRequest, body: [UInt8] = [],
        streamedBody: HTTP1Request.StreamedBody? = nil
    ) throws(HTTPRequestError) -> HTTP1Request {
        // The same checks HTTP/2 makes, so both protocols refuse the same requests.
        let head = try ValidatedRequestHead(request, bodyLength: streamedBody.map(\.length) ?? Int64(body.count))
        return encode(head, body: body, streamedBody: streamedBody)
    }

    /// Serializes `head`, already checked for this body, with `body` or `streamedBody`'s framing.
    static func encode(
        _ head: ValidatedRequestHead, body: [UInt8] = [],
        streamedBody: HTTP1Request.StreamedBody? = nil
    ) -> HTTP1Request {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256 + body.count)
        append(head.method.rawValue, to: &bytes)
        bytes.append(HTTPGrammar.space)
        append(head.target, to: &bytes)
        append(" HTTP/1.1\r\nHost: ", to: &bytes)
        append(head.authority, to: &bytes)
        append("\r\n", to: &bytes)
        for (name, value) in head.fields {
            appendField(name, value, to: &bytes)
        }
        switch streamedBody {
        case .contentLength(let length)?:
            appendField("Content-Length", String(length), to: &bytes)
        case .chunked?:
            appendField("Transfer-Encoding", "chunked", to: &bytes)
        case nil:
            if !body.isEmpty || methodsExpectingBody.contains(head.method) {
                appendField("Content-Length", String(body.count), to: &bytes)
            }
        }
        if head.closesConnection { appendField("Connection", "close", to: &bytes) }
        append("\r\n", to: &bytes)
        let bodyStart = bytes.count
        bytes.append(contentsOf: body)
        return HTTP1Request(
            method: head.method, url: head.url, bytes: bytes, closesConnection: head.closesConnection,
            bodyStart: bodyStart, streamedBody: streamedBody)
    }

    /// Methods whose requests carry content, so an empty body is stated as `Content-Length: 0`.
    static var methodsExpectingBody: Set<HTTPMethod> { ValidatedRequestHead.methodsExpectingBody }

    private static func appendField(_ name: String, _ value: String, to bytes: inout [UInt8]) {
        append(name, to: &bytes)
        append(": ", to: &bytes)
        append(value, to: &bytes)
        append("\r\n", to: &bytes)
    }

    private static func append(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: text.utf8)
    }
}
