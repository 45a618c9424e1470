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
