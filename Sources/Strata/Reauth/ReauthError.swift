import Foundation

/// A failure of ``ReauthTransport``'s own work: refreshing the access token, not the request.
///
/// Every request that was waiting for the same refresh receives the same `ReauthError`. Through
/// ``HTTPNetworkService`` it arrives as ``NetworkError/transport(_:)`` wrapping this error:
/// ```swift
/// do {
///     let me: User = try await service.request(to: API.me, via: production)
/// } catch NetworkError.transport(ReauthError.refreshFailed(let reason)) {
///     signOut(because: reason)
/// }
/// ```
public enum ReauthError: Error, CustomStringConvertible {
    /// The `refreshToken` closure threw; carries what it threw. The request's 401 stands. A
    /// later 401 tries to refresh again: failures are not remembered.
    case refreshFailed(any Error)
    /// The loop guard refused to start another refresh: `refreshes` refreshes already happened
    /// within `window`. The server keeps rejecting freshly refreshed tokens.
    case refreshLoopDetected(refreshes: Int, window: Duration)
    /// The `refreshToken` closure returned, but the auth service had no access token afterwards.
    case noTokenAfterRefresh
    /// The access token cannot be sent in an `Authorization` header (it contains CR, LF or
    /// another control character), so the request was not resent.
    case invalidToken(HTTPHeaderError)

    /// What went wrong and what to do about it.
    public var description: String {
        switch self {
        case .refreshFailed(let error):
            "The access token was rejected (401) and refreshing it failed: \(error). "
                + "Sign the user in again; the next 401 will try to refresh once more."
        case .refreshLoopDetected(let refreshes, let window):
            "The access token was rejected (401) again after \(refreshes) refreshes within \(window); "
                + "not refreshing again so as not to hammer the token endpoint. The server rejects "
                + "fresh tokens: check the token audience and scopes, the client's clock, or sign in again."
        case .noTokenAfterRefresh:
            "The refreshToken closure returned without error, but the auth service has no access token "
                + "afterwards. Save the new token with AuthServiceProtocol.setAccessToken inside refreshToken."
        case .invalidToken(let error):
            "The access token cannot be sent as a header, so the request was not resent: \(error)"
        }
    }
}

extension ReauthError: LocalizedError {
    /// The same text as `description`, so `localizedDescription` says what happened and what
    /// to do instead of "The operation could not be completed".
    public var errorDescription: String? { description }
}
