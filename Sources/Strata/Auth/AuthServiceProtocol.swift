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
