#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata

// ReauthTransport names from api.md, and the defaulted additions around them.

func reauthContract() async throws {
    let auth = InMemoryAuthService(accessToken: "t")
    let inner: any Transport = URLSessionTransport()
    _ = ReauthTransport(inner: inner, authService: auth, refreshToken: { await auth.setAccessToken("t2") })
    _ = ReauthTransport(inner: inner, authService: auth) { await auth.setAccessToken("t2") }
    let reauth = ReauthTransport(inner: inner, authService: auth,
                                 loopGuard: RefreshLoopGuard(maxRefreshes: 5, window: .seconds(30)),
                                 clock: ContinuousClock(),
                                 refreshToken: { await auth.setAccessToken("t2") })
    let transport: any Transport = ObservingTransport(inner: reauth) { observed in
        guard let event = observed.event as? ReauthEvent else { return }
        switch event {
        case .started, .resentWithCurrentToken, .resentWithNewToken: break
        case .succeeded(let waiters, let duration): _ = (waiters, duration)
        case .failed(let error, let waiters, let duration): _ = (error, waiters, duration)
        case .refusedByLoopGuard(let refreshes, let window): _ = (refreshes, window)
        }
        _ = (observed.requestID, observed.attempt, event.name, event.logLevel)
    }
    do {
        _ = try await transport.send(URLRequest(url: URL(fileURLWithPath: "/")))
    } catch ReauthError.refreshFailed(let underlying) {
        _ = underlying
    } catch ReauthError.refreshLoopDetected(let refreshes, let window) {
        _ = (refreshes, window)
    }
}
