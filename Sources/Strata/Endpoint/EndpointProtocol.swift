import Foundation

/// A description of one API operation: path, method, query, headers, body and whether it needs
/// the user's access token.
///
/// Write an API as an enum, one case per operation, with associated values for its parameters:
/// ```swift
/// enum TodoAPI: EndpointProtocol {
///     case list(page: Int)
///     case create(Todo)
///
///     var path: String {
///         switch self {
///         case .list: "/todos"
///         case .create: "/todos"
///         }
///     }
///     var method: HTTPMethod { if case .create = self { .post } else { .get } }
///     var query: [URLQueryItem]? {
///         if case .list(let page) = self { [URLQueryItem(name: "page", value: String(page))] } else { nil }
///     }
///     var body: RequestBody? { if case .create(let todo) = self { .json(todo) } else { nil } }
///     var requiresAuth: Bool { true }
/// }
/// ```
///
/// The path is appended to the environment's base URL path with exactly one slash between
/// them. Characters a path cannot hold are percent-encoded for you, but `/`, dot segments and
/// `%XX` escapes keep their meaning, so encode values you interpolate with
/// ``PathSegment/encode(_:)``: `"/files/\(PathSegment.encode(name))"`.
public protocol EndpointProtocol: Sendable {
    /// The path relative to the base URL, such as `"/users/42"`. Must not contain `?` or `#`;
    /// put query items in ``query``.
    var path: String { get }
    /// The request method.
    var method: HTTPMethod { get }
    /// Query items, percent-encoded strictly so `+`, `&`, `=`, spaces and non-ASCII survive.
    /// Default: `nil`.
    var query: [URLQueryItem]? { get }
    /// Extra request headers; they override the environment's and the default `Accept`.
    /// Default: none.
    var headers: [String: String] { get }
    /// The request body. Default: `nil`.
    var body: RequestBody? { get }
    /// Whether the request carries `Authorization: Bearer <token>` from the service's
    /// ``AuthServiceProtocol``. Default: `false`.
    var requiresAuth: Bool { get }
}

extension EndpointProtocol {
    /// No query items.
    public var query: [URLQueryItem]? { nil }
    /// No extra headers.
    public var headers: [String: String] { [:] }
    /// No body.
    public var body: RequestBody? { nil }
    /// No authentication.
    public var requiresAuth: Bool { false }
}
