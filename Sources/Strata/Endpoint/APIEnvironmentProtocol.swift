import Foundation

/// Where an API lives: the base URL every endpoint path is appended to, and headers sent with
/// every request (an API key, a client version).
///
/// Use one environment per deployment (production, staging, a local sandbox) and pass it to
/// ``HTTPNetworkService`` calls; the endpoints stay the same.
public protocol APIEnvironmentProtocol: Sendable {
    /// The base URL, such as `https://api.example.com/v1`. Must be absolute `http` or `https`.
    var baseURL: URL { get }
    /// Headers added to every request; an endpoint's own headers override them. Default: none.
    var headers: [String: String] { get }
}

extension APIEnvironmentProtocol {
    /// No environment-wide headers.
    public var headers: [String: String] { [:] }
}
