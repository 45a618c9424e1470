#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata

// The README's "full stack" snippet, compiled so the manual cannot drift from the API.

private enum IdentityProvider {
    static func refresh() async throws -> String { "token" }
}

func readmeFullStack(savedToken: String, cacheDirectory: URL) throws -> HTTPNetworkService {
    let identityProvider = IdentityProvider.self
    let auth = InMemoryAuthService(accessToken: savedToken)
    let store = try FileETagStore(directory: cacheDirectory)

    let stack = LoggingTransport(                       // optional: structured, redacted logs
        inner: ReauthTransport(                         // 401 -> one shared refresh -> resend once
            inner: RetryTransport(                      // transient failures -> backoff, Retry-After, budget
                inner: ETagTransport(                   // conditional GET, 304 -> stored body
                    inner: URLSessionTransport(),       // the network (PinningTransport goes here for pinned hosts)
                    store: store),
                policy: RetryPolicy(maxRetries: 3)),
            authService: auth,
            refreshToken: { try await auth.setAccessToken(identityProvider.refresh()) }),
        logger: ConsoleLogger(minimumLevel: .info))

    return HTTPNetworkService(transport: stack, authService: auth)
}
