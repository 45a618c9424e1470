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
enum HTTP1RequestEncoder {
    /// The largest file or stream body collected into memory: only HTTP/2 collects one (until
    /// its request bodies stream); HTTP/1.1 writes such bodies as they are read, whatever their size.
    static let maxBodyBytes = 64 << 20

    /// The bytes of `request`'s body, read into memory within ``maxBodyBytes`` (for HTTP/2).
    ///
    /// - Throws: ``HTTP1RequestError/bodyTooLarge(limit:)`` past the limit, or
    ///   ``HTTP1RequestError/unreadableBody(_:)`` when reading the body fails.
    static func bodyBytes(of request: HTTPRequest) async throws(HTTP1RequestError) -> [UInt8] {
        guard let body = request.body else { return [] }
        if let bytes = body.bytesInMemory {
            guard bytes.count <= maxBodyBytes else { throw .bodyTooLarge(limit: maxBodyBytes) }
            return bytes
        }
        do {
            return [UInt8](try await body.collect(upTo: maxBodyBytes))
        } catch HTTPBodyError.tooLarge {
            throw .bodyTooLarge(limit: maxBodyBytes)
        } catch let error as HTTPBodyError {
            throw .unreadableBody(error)
        } catch {
            throw .unreadableBody(.unreadableStream(reason: String(describing: error)))
        }
    }

    /// Serializes `request`'s head for HTTP/1.1: with its body when the body is in memory (written
    /// in one piece), or with the framing of a file or stream body that the connection then writes
    /// from ``HTTPBody`` as it is read (never collected).
    ///
    /// - Returns: The request's bytes and what the connection needs to know about it.
    /// - Throws: ``HTTP1RequestError`` when the request cannot be written unambiguously.
    static func encodeStreaming(_ request: HTTPRequest) throws(HTTP1RequestError) -> HTTP1Request {
        guard let body = request.body else { return try encode(request) }
        if let bytes = body.bytesInMemory { return try encode(request, body: bytes) }
        return try encode(request, streamedBody: body.length.map { .contentLength($0) } ?? .chunked)
    }

    /// Serializes `request` with `body`, its body's bytes (from ``bodyBytes(of:)``), or with the
    /// head only and `streamedBody`'s framing when the body is written after it.
    ///
    /// - Returns: The request's bytes and what the connection needs to know about it.
    /// - Throws: ``HTTP1RequestError`` when the request cannot be written unambiguously.
    static func encode(_ request: HTTPRequest, body: [UInt8] = [],
                       streamedBody: HTTP1Request.StreamedBody? = nil) throws(HTTP1RequestError) -> HTTP1Request {
        let url = request.url
        guard let parts = Target(url), !parts.host.isEmpty else { throw .missingHost }
        let host = parts.host
        let scheme = parts.scheme.lowercased()
        guard scheme == "http" || scheme == "https" else { throw .unsupportedScheme(parts.scheme) }
        let method = request.method
        guard !method.rawValue.isEmpty, method.rawValue.utf8.allSatisfy(HTTP1Grammar.isTokenCharacter),
              method.rawValue != "CONNECT" else { throw .unsupportedMethod(method.rawValue) }

        let defaultPort = scheme == "https" ? 443 : 80
        let authority = parts.port.map { $0 == defaultPort ? host : "\(host):\($0)" } ?? host
        do {
            try HTTPHeaders.validate(name: "Host", value: authority)
        } catch {
            throw .invalidHeader(error)
        }
        let callerHeaders = request.headers
        var closesConnection = false
        for (name, value) in callerHeaders {
            do {
                try HTTPHeaders.validate(name: name, value: value)
            } catch {
                throw .invalidHeader(error)
            }
            closesConnection = try checkOwnedHeader(name: name, value: value, authority: authority,
                                                    bodyLength: streamedBody.map(\.length) ?? Int64(body.count))
                || closesConnection
        }

        var bytes: [UInt8] = []
        bytes.reserveCapacity(256 + body.count)
        append(method.rawValue, to: &bytes)
        bytes.append(HTTP1Grammar.space)
        var target: [UInt8] = []
        appendTarget(path: parts.path, query: parts.query, to: &target)
        bytes.append(contentsOf: target)
        append(" HTTP/1.1\r\nHost: ", to: &bytes)
        append(authority, to: &bytes)
        append("\r\n", to: &bytes)
        let fields = callerHeaders.filter { !isOwned($0.name) }
        for (name, value) in fields {
            appendField(name, value, to: &bytes)
        }
        switch streamedBody {
        case .contentLength(let length)?:
            appendField("Content-Length", String(length), to: &bytes)
        case .chunked?:
            appendField("Transfer-Encoding", "chunked", to: &bytes)
        case nil:
            if !body.isEmpty || methodsExpectingBody.contains(method) {
                appendField("Content-Length", String(body.count), to: &bytes)
            }
        }
        if closesConnection { appendField("Connection", "close", to: &bytes) }
        append("\r\n", to: &bytes)
        let bodyStart = bytes.count
        bytes.append(contentsOf: body)
        return HTTP1Request(method: method, url: url, bytes: bytes, closesConnection: closesConnection,
                            authority: authority, target: String(decoding: target, as: UTF8.self), fields: fields,
                            bodyStart: bodyStart, streamedBody: streamedBody)
    }

    /// Methods whose requests carry content, so an empty body is stated as `Content-Length: 0`.
    static let methodsExpectingBody: Set<HTTPMethod> = [.post, .put, .patch]

    private static let ownedHeaders = ["host", "content-length", "transfer-encoding", "connection"]

    /// The owned header `name` is (lower-case), or `nil`: most fields are not owned, and are
    /// told apart by length without lower-casing them (names are tokens, checked before).
    private static func ownedHeader(_ name: String) -> String? {
        ownedHeaders.first { HTTPHeaders.equal($0, name) }
    }

    private static func isOwned(_ name: String) -> Bool {
        ownedHeader(name) != nil
    }

    /// Checks a caller's value for a header the encoder writes itself.
    ///
    /// - Returns: Whether the header asks to close the connection.
    private static func checkOwnedHeader(name: String, value: String, authority: String,
                                         bodyLength: Int64?) throws(HTTP1RequestError) -> Bool {
        guard let owned = ownedHeader(name) else { return false }
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        switch owned {
        case "host":
            guard trimmed.lowercased() == authority.lowercased() else {
                throw .conflictingHeader(name: name, value: value,
                                         reason: "it differs from the URL's authority \(authority)")
            }
        case "content-length":
            guard let bodyLength else {
                throw .conflictingHeader(name: name, value: value,
                                         reason: "the body's length is not known, so it is sent chunked; remove Content-Length "
                                             + "or give the body its length")
            }
            guard trimmed == String(bodyLength) else {
                throw .conflictingHeader(name: name, value: value,
                                         reason: "the body is \(bodyLength) bytes; leave Content-Length to the client")
            }
        case "transfer-encoding":
            throw .conflictingHeader(name: name, value: value,
                                     reason: "the client frames the body itself (Content-Length, or chunked when the length is unknown); "
                                         + "remove Transfer-Encoding")
        case "connection":
            var closes = false
            for option in trimmed.lowercased().split(separator: ",") {
                switch option.trimmingCharacters(in: .whitespaces) {
                case "close": closes = true
                case "keep-alive", "": break
                default:
                    throw .conflictingHeader(name: name, value: value,
                                             reason: "only \"close\" and \"keep-alive\" are supported")
                }
            }
            return closes
        default:
            break
        }
        return false
    }

    /// Writes the origin-form target (RFC 9112 §3.2.1), escaping any byte that URL parsing left
    /// outside RFC 3986 `pchar` (plus `/` and `?` in the query) so the line stays one token.
    private static func appendTarget(path: Substring, query: Substring?, to bytes: inout [UInt8]) {
        if path.isEmpty {
            bytes.append(UInt8(ascii: "/"))
        } else {
            appendEscaped(path, to: &bytes)
        }
        guard let query else { return }
        bytes.append(UInt8(ascii: "?"))
        appendEscaped(query, to: &bytes)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func appendEscaped(_ text: Substring, to bytes: inout [UInt8]) {
        for byte in text.utf8 {
            if isTargetCharacter(byte) {
                bytes.append(byte)
            } else {
                bytes.append(contentsOf: [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]])
            }
        }
    }

    /// Unreserved, sub-delims, `:`, `@`, `/`, `?` and `%` (existing escapes are kept).
    private static func isTargetCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "-._~!$&'()*+,;=:@/?%".utf8.contains(byte)
        }
    }

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

extension HTTP1RequestEncoder {
    /// What the request line and `Host` need from a URL: scheme, host and path as written
    /// (percent-encoded), port, query. A URL of the common shape is split by one scan
    /// (``SimpleURL``); any other by `URLComponents`, which gives the same parts at many times
    /// the cost (a full parse and an IDNA pass over the host).
    struct Target {
        var scheme: String
        var host: String
        var port: Int?
        var path: Substring
        var query: Substring?

        init?(_ url: URL) {
            if let simple = SimpleURL(url) {
                scheme = String(simple.scheme)
                host = String(simple.host)
                port = simple.port
                path = simple.path
                query = simple.query
                return
            }
            guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
                  let host = components.percentEncodedHost else { return nil }
            scheme = components.scheme ?? ""
            self.host = host
            port = components.port
            path = Substring(components.percentEncodedPath)
            query = components.percentEncodedQuery.map { Substring($0) }
        }
    }
}
