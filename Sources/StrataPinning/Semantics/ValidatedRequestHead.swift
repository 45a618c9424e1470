#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata

/// The parts of an `HTTPRequest` that every protocol sends, checked once by the same rules:
/// HTTP/1.1 writes them as a request line and fields, HTTP/2 as pseudo-header fields and fields,
/// so both accept and refuse exactly the same requests with the same ``HTTPRequestError``.
///
/// The rules (see ``HTTP1RequestEncoder`` for why each owned header is checked, not copied):
/// - an absolute `http`/`https` URL with a host; a token method other than `CONNECT`;
/// - every field passes `HTTPHeaders.validate(name:value:)` (no CR, LF or NUL reaches the wire);
/// - `Host` must equal the URL's authority, `Content-Length` the body's length (refused when the
///   length is unknown), `Transfer-Encoding` is refused, `Connection` may only be `close` or
///   `keep-alive`. These owned fields are left out of ``fields``: each protocol frames them itself.
struct ValidatedRequestHead: Sendable {
    var method: HTTPMethod
    var url: URL
    /// The authority as sent in `Host` / `:authority`: the port only when not the scheme's default.
    var authority: String
    /// The escaped origin-form target (RFC 9112 §3.2.1), `:path` in HTTP/2.
    var target: String
    /// The caller's fields in order, without the owned ones.
    var fields: [(name: String, value: String)]
    /// Whether the caller asked for `Connection: close`.
    var closesConnection: Bool
}

extension ValidatedRequestHead {
    /// The length `request`'s body declares: 0 without a body, nil when the body's length is
    /// not known in advance (never 0 for that: a caller's `Content-Length` must then be refused).
    static func bodyLength(of request: HTTPRequest) -> Int64? {
        guard let body = request.body else { return 0 }
        return body.length
    }

    /// Checks `request`, whose body will be `bodyLength` bytes (nil: not known in advance).
    ///
    /// - Throws: ``HTTPRequestError`` when the request cannot be written unambiguously.
    init(_ request: HTTPRequest, bodyLength: Int64?) throws(HTTPRequestError) {
        let url = request.url
        guard let parts = RequestTarget(url), !parts.host.isEmpty else { throw .missingHost }
        let host = parts.host
        let scheme = parts.scheme.lowercased()
        guard scheme == "http" || scheme == "https" else { throw .unsupportedScheme(parts.scheme) }
        let method = request.method
        guard !method.rawValue.isEmpty, method.rawValue.utf8.allSatisfy(HTTPHeaders.isTokenCharacter),
            method.rawValue != "CONNECT"
        else { throw .unsupportedMethod(method.rawValue) }

        let defaultPort = scheme == "https" ? 443 : 80
        let authority = parts.port.map { $0 == defaultPort ? host : "\(host):\($0)" } ?? host
        do {
            try HTTPHeaders.validate(name: "Host", value: authority)
        } catch {
            throw .invalidHeader(error)
        }
        var closesConnection = false
        for (name, value) in request.headers {
            do {
                try HTTPHeaders.validate(name: name, value: value)
            } catch {
                throw .invalidHeader(error)
            }
            closesConnection =
                try Self.checkOwnedHeader(
                    name: name, value: value, authority: authority,
                    bodyLength: bodyLength) || closesConnection
        }
        var target: [UInt8] = []
        Self.appendTarget(path: parts.path, query: parts.query, to: &target)
        self.method = method
        self.url = url
        self.authority = authority
        self.target = String(decoding: target, as: UTF8.self)
        self.fields = request.headers.filter { !Self.isOwned($0.name) }
        self.closesConnection = closesConnection
    }

    /// Methods whose requests carry content, so an empty body is stated as `Content-Length: 0`
    /// (RFC 9110 §8.6: a server may otherwise wait for a body or answer 411).
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

    /// Checks a caller's value for a header the client writes itself.
    ///
    /// - Returns: Whether the header asks to close the connection.
    private static func checkOwnedHeader(
        name: String, value: String, authority: String,
        bodyLength: Int64?
    ) throws(HTTPRequestError) -> Bool {
        guard let owned = ownedHeader(name) else { return false }
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        switch owned {
        case "host":
            guard trimmed.lowercased() == authority.lowercased() else {
                throw .conflictingHeader(
                    name: name, value: value,
                    reason: "it differs from the URL's authority \(authority)")
            }
        case "content-length":
            guard let bodyLength else {
                throw .conflictingHeader(
                    name: name, value: value,
                    reason: "the body's length is not known, so it is sent chunked (HTTP/1.1) or ended "
                        + "by END_STREAM (HTTP/2); remove Content-Length or give the body its length")
            }
            guard trimmed == String(bodyLength) else {
                throw .conflictingHeader(
                    name: name, value: value,
                    reason: "the body is \(bodyLength) bytes; leave Content-Length to the client")
            }
        case "transfer-encoding":
            throw .conflictingHeader(
                name: name, value: value,
                reason: "the client frames the body itself (Content-Length, or chunked when the length is unknown); "
                    + "remove Transfer-Encoding")
        case "connection":
            var closes = false
            for option in trimmed.lowercased().split(separator: ",") {
                switch option.trimmingCharacters(in: .whitespaces) {
                case "close": closes = true
                case "keep-alive", "": break
                default:
                    throw .conflictingHeader(
                        name: name, value: value,
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

    /// Unreserved, sub-delims, `:`, `@`, `/`, `?` and `%` (existing escapes are kept). One
    /// `switch`, not a search of a string literal's bytes: every `/` and `=` of every target.
    private static func isTargetCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
            UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"), UInt8(ascii: "?"),
            UInt8(ascii: "%"):
            true
        default:
            false
        }
    }
}
