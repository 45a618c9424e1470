/// An HTTP request method such as `GET` or `POST`.
///
/// Methods are case-sensitive (RFC 9110 §9.1); the predefined values are upper case.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    /// The method's token as sent on the wire.
    public let rawValue: String

    /// Creates a method from its token.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Creates a method from a string literal such as `"PROPFIND"`.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// `GET`: retrieve a representation.
    public static let get: HTTPMethod = "GET"
    /// `POST`: process the enclosed content; not idempotent.
    public static let post: HTTPMethod = "POST"
    /// `PUT`: replace the target's state.
    public static let put: HTTPMethod = "PUT"
    /// `PATCH`: partially modify the target; not idempotent.
    public static let patch: HTTPMethod = "PATCH"
    /// `DELETE`: remove the target.
    public static let delete: HTTPMethod = "DELETE"
    /// `HEAD`: like `GET` without a response body.
    public static let head: HTTPMethod = "HEAD"
    /// `OPTIONS`: describe the communication options.
    public static let options: HTTPMethod = "OPTIONS"
    /// `TRACE`: loop the request back.
    public static let trace: HTTPMethod = "TRACE"

    /// Whether sending the request twice has the same intended effect as sending it once
    /// (RFC 9110 §9.2.2): `GET`, `HEAD`, `OPTIONS`, `TRACE`, `PUT` and `DELETE`.
    public var isIdempotent: Bool {
        switch self {
        case .get, .head, .options, .trace, .put, .delete: true
        default: false
        }
    }

    /// Whether the method is read-only (RFC 9110 §9.2.1): `GET`, `HEAD`, `OPTIONS` and `TRACE`.
    package var isSafe: Bool {
        switch self {
        case .get, .head, .options, .trace: true
        default: false
        }
    }
}

extension HTTPMethod: CustomStringConvertible {
    /// The method's token, for example `GET`.
    public var description: String { rawValue }
}

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

extension HTTPMethod {
    /// The method of a `URLRequest`; `GET` when it has none, as URLSession assumes.
    package init(_ request: URLRequest) {
        self.init(rawValue: request.httpMethod ?? "GET")
    }
}
