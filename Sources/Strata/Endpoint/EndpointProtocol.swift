import Foundation

/// A description of one API operation: path, method, query, headers, body, whether it needs
/// the user's access token, how long it may take and which statuses it accepts.
///
/// > Important: Only `path` and `method` are required; every other member has a default. A
/// > member whose type differs from the requirement's, even slightly, is **not** the requirement:
/// > it is a new property the protocol never reads, and the default silently wins. The compiler
/// > does not warn. Spell the types exactly as below (`var query: [URLQueryItem]?` with the `?`,
/// > `var headers: [String: String]`, `var body: RequestBody?`, `var timeout: Duration?`,
/// > `var acceptedStatusCodes: Set<Int>`), or let the compiler check them by asking for the
/// > requirement through the protocol in a test: `#expect((MyAPI.list as any EndpointProtocol).query != nil)`.
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
///     var timeout: Duration? { .seconds(10) }                          // the whole request
///     var acceptedStatusCodes: Set<Int> { Set(200..<300).union([404]) }  // 404: no such todo
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
    /// The longest the whole request may take, every layer included (retries and their waits,
    /// a token refresh's resend, redirects); past it the request fails with
    /// ``TransportError/Kind/timedOut``. `nil` (the default) leaves only the transports' own
    /// timeouts. See ``RequestDeadline``.
    var timeout: Duration? { get }
    /// The statuses ``HTTPNetworkService`` returns or decodes instead of throwing
    /// ``NetworkError/httpStatus(_:)``. Default: `200..<300`. Add a status that is an answer
    /// for this endpoint, such as a `404` that means "absent": asked for an optional model, the
    /// service then returns `nil` for it.
    var acceptedStatusCodes: Set<Int> { get }
    /// How an ``ETagTransport`` in the stack caches this endpoint's responses, whatever the
    /// server's headers say: ``EndpointCachePolicy/reuse(for:)`` a response for a time,
    /// ``EndpointCachePolicy/alwaysRevalidate``, or ``EndpointCachePolicy/neverStore``.
    /// Default: ``EndpointCachePolicy/standard`` (as the response's headers say).
    var cachePolicy: EndpointCachePolicy { get }
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
    /// No whole-request timeout beyond the transports' own.
    public var timeout: Duration? { nil }
    /// The 2xx statuses.
    public var acceptedStatusCodes: Set<Int> { EndpointDefaults.successStatusCodes }
    /// As the response's headers say.
    public var cachePolicy: EndpointCachePolicy { .standard }
}

/// Values the endpoint defaults share, built once.
enum EndpointDefaults {
    /// `200..<300`.
    static let successStatusCodes = Set(200..<300)
}
