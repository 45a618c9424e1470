#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataPinning

// The README's "full stack" snippet, compiled so the manual cannot drift from the API.

private enum IdentityProvider {
    static func refresh() async throws -> String { "token" }
}

func readmeFullStack(savedToken: String, cacheDirectory: URL, currentKeyPin: String,
                     backupKeyPin: String) throws -> HTTPNetworkService {
    let identityProvider = IdentityProvider.self
    let auth = InMemoryAuthService(accessToken: savedToken)
    let store = try FileETagStore(directory: cacheDirectory)
    let pins = try PublicKeyPinningEvaluator(pins: [currentKeyPin, backupKeyPin], requiresBackupPin: true)

    let stack = LoggingTransport(                       // optional: structured, redacted logs
        inner: ReauthTransport(                         // 401 -> one shared refresh -> resend once
            inner: RetryTransport(                      // transient failures -> backoff, Retry-After, budget
                inner: ETagTransport(                   // conditional GET, 304 -> stored body
                    inner: PinningTransport(            // pinned hosts over its own verified TLS connections
                        pinnedDomains: ["api.example.com": pins]),   // everything else via URLSession
                    store: store),
                policy: RetryPolicy(maxRetries: 3)),
            authService: auth,
            refreshToken: { try await auth.setAccessToken(identityProvider.refresh()) }),
        logger: ConsoleLogger(minimumLevel: .info))

    return HTTPNetworkService(transport: stack, authService: auth)
}
