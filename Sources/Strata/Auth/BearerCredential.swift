#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// Reading and writing `Authorization: Bearer <token>` (RFC 6750 §2.1): the one place the header
/// is spelled, for ``HTTPNetworkService`` (which attaches the token) and ``ReauthTransport``
/// (which recognises it and resends with a new one).
enum BearerCredential {
    static let headerName = "Authorization"

    /// The token in a request's `Authorization` header, or `nil` when it has none or uses
    /// another scheme. The scheme is matched case-insensitively (RFC 9110 §11.1).
    static func token(in request: HTTPRequest) -> String? {
        request.headers[headerName].flatMap(token(inAuthorization:))
    }

    /// The token in an `Authorization` value such as `Bearer abc`, or `nil` when the value is
    /// not a bearer credential with a non-empty token.
    ///
    /// Read on every request a ``ReauthTransport`` sees, so it works on the UTF-8 bytes; a token
    /// that starts with a non-ASCII byte (which might combine with the space before it into one
    /// character) is read character by character instead.
    static func token(inAuthorization value: String) -> String? {
        var bytes = value
        let parsed = bytes.withUTF8 { bytes -> String?? in
            let scheme: StaticString = "bearer"
            guard bytes.count > scheme.utf8CodeUnitCount else { return .some(nil) }
            for index in 0..<scheme.utf8CodeUnitCount
            where HTTPHeaders.asciiLowercased(bytes[index]) != scheme.utf8Start[index] { return .some(nil) }
            // RFC 6750: credentials = "Bearer" 1*SP b64token.
            var index = scheme.utf8CodeUnitCount
            guard bytes[index] == UInt8(ascii: " ") else { return .some(nil) }
            while index < bytes.count, bytes[index] == UInt8(ascii: " ") { index += 1 }
            guard index < bytes.count else { return .some(nil) }
            guard bytes[index] < 0x80 else { return nil }
            return .some(String(decoding: UnsafeBufferPointer(rebasing: bytes[index...]), as: UTF8.self))
        }
        return parsed ?? characterToken(inAuthorization: value)
    }

    /// ``token(inAuthorization:)`` by characters, where a combining mark joins the character
    /// before it.
    private static func characterToken(inAuthorization value: String) -> String? {
        let scheme = "bearer"
        guard value.count > scheme.count, value.prefix(scheme.count).lowercased() == scheme else { return nil }
        let rest = value.dropFirst(scheme.count)
        guard rest.first == " " else { return nil }
        let token = rest.drop { $0 == " " }
        return token.isEmpty ? nil : String(token)
    }

    /// The `Authorization` value for `token`.
    ///
    /// - Throws: ``HTTPHeaderError`` when the token cannot go in a header (CR, LF, NUL).
    static func authorization(for token: String) throws(HTTPHeaderError) -> String {
        let value = "Bearer \(token)"
        try HTTPHeaders.validate(name: headerName, value: value)
        return value
    }

    /// `request` with its `Authorization` replaced by a bearer credential for `token`.
    ///
    /// - Throws: ``HTTPHeaderError`` when the token cannot go in a header (CR, LF, NUL).
    static func authorizing(_ request: HTTPRequest, with token: String) throws(HTTPHeaderError) -> HTTPRequest {
        var request = request
        request.headers[headerName] = try authorization(for: token)
        return request
    }
}
