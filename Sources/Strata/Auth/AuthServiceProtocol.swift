/// The source of the access token that ``HTTPNetworkService`` attaches to endpoints that
/// require authentication, and that `ReauthTransport` replaces after a refresh.
///
/// Implement it over your keychain, database or secret store. Implementations are called
/// concurrently and must be safe for that (an actor is the natural choice).
public protocol AuthServiceProtocol: Sendable {
    /// The current access token, or `nil` when the user is signed out.
    func accessToken() async -> String?
    /// Replaces the current access token; `nil` signs the user out.
    func setAccessToken(_ token: String?) async
}

/// An ``AuthServiceProtocol`` that keeps the token in memory, for tools, tests and processes
/// that obtain a token at start-up.
public actor InMemoryAuthService: AuthServiceProtocol {
    private var token: String?

    /// Creates the service, optionally with a token already set.
    public init(accessToken: String? = nil) {
        token = accessToken
    }

    /// The current access token, or `nil`.
    public func accessToken() async -> String? { token }

    /// Replaces the access token.
    public func setAccessToken(_ token: String?) async { self.token = token }
}
