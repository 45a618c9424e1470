import Foundation

/// A ready-made environment: a base URL and optional headers.
public struct DefaultAPIEnvironment: APIEnvironmentProtocol {
    /// The base URL every endpoint path is appended to.
    public var baseURL: URL
    /// Headers added to every request.
    public var headers: [String: String]

    /// Creates an environment.
    public init(baseURL: URL, headers: [String: String] = [:]) {
        self.baseURL = baseURL
        self.headers = headers
    }
}
