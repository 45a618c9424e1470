#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// A decorator that refreshes an expired access token when the server answers 401, and resends
/// the request once with the new token.
///
/// Use it when your API issues short-lived bearer tokens that your app can renew (an OAuth
/// refresh token, a silent sign-in). Put it outermost, directly under ``HTTPNetworkService``, so
/// one 401 causes one refresh and not one per retry:
/// ```swift
/// let auth = InMemoryAuthService(accessToken: savedToken)
/// let transport = ReauthTransport(inner: RetryTransport(inner: URLSessionTransport()),
///                                 authService: auth) {
///     let tokens = try await tokenEndpoint.refresh(using: keychain.refreshToken)
///     await auth.setAccessToken(tokens.accessToken)
/// }
/// let service = HTTPNetworkService(transport: transport, authService: auth)
/// ```
///
/// ## What it does
/// - **Only our token.** It acts on a request only if its `Authorization` is `Bearer <token>`
///   for a token `authService` handed out (the current one, or one of the last few it
///   replaced). A request without an `Authorization` header, or with one the caller set itself,
///   passes through untouched, whatever its status. It never adds a token to a request that
///   did not carry one, so a token only goes where ``HTTPNetworkService`` put it (endpoints with
///   `requiresAuth`, on the environment's host).
/// - **Only our origin's 401.** A 401 is taken as a verdict on our token only when it answers
///   the origin the token was sent to. After a redirect to another origin (which dropped the
///   `Authorization` header) that origin's 401 is returned as is: it says nothing about our token.
///   (A redirect away and back to the token's origin also arrives without the token; its 401
///   still refreshes, which costs a refresh but leaks nothing.)
/// - **One refresh.** Every 401 for the current token that arrives while a refresh is running
///   waits for that refresh; there is at most one refresh in flight.
/// - **Resend once.** After the refresh, each waiting request is resent once with the new token.
///   A second 401 is returned as is (``HTTPNetworkService`` turns it into
///   ``NetworkError/httpStatus(_:)``).
/// - **No storms.** A 401 for a token that has *already been replaced* (the request was in
///   flight during a refresh) is resent with the current token without refreshing again, which
///   with rotating refresh tokens would otherwise log the user out.
/// - **Failures fan out.** If `refreshToken` throws, every waiting request fails with the same
///   ``ReauthError/refreshFailed(_:)``. Nothing is cached: the next 401 tries again.
/// - **Cancellation is per caller.** A cancelled caller stops waiting at once with
///   `CancellationError`; the refresh and the other callers carry on.
/// - **Loop guard.** More than ``RefreshLoopGuard/maxRefreshes`` refreshes within its
///   ``RefreshLoopGuard/window`` fail with ``ReauthError/refreshLoopDetected(refreshes:window:)``
///   instead of refreshing again.
///
/// A request whose body is a stream (`httpBodyStream`) cannot be sent twice; its 401 is
/// returned as is. Copies of a `ReauthTransport` share one refresh and one loop guard.
public struct ReauthTransport: Transport {
    /// The transport that sends the requests and their resends.
    public let inner: any Transport
    /// `inner`, when it reports client identities (looked up once, not per request).
    private let cacheIdentities: (any CacheIdentityProviding)?
    private let authService: any AuthServiceProtocol
    private let sharedRefresh: SingleFlightRefresh
    /// Whether a layer below may observe events: only then is a logical request begun.
    private let beginsLogicalRequest: Bool

    /// Creates the transport.
    ///
    /// - Parameters:
    ///   - inner: The transport that sends the requests (and the resends).
    ///   - authService: The token source ``HTTPNetworkService`` attaches tokens from.
    ///   - loopGuard: How many refreshes are allowed within how much time. Default: 5 in 30 s.
    ///   - clock: The clock the loop guard's window and the events' durations are measured
    ///     with. Default: `ContinuousClock()`; tests pass a manual clock.
    ///   - refreshToken: Obtains a new access token and saves it through `authService`
    ///     (`setAccessToken`). Called by at most one task at a time, never cancelled. Throw to
    ///     report that the token cannot be renewed (the user must sign in again).
    public init(
        inner: any Transport, authService: any AuthServiceProtocol,
        loopGuard: RefreshLoopGuard = RefreshLoopGuard(),
        clock: some Clock<Duration> = ContinuousClock(),
        refreshToken: @escaping @Sendable () async throws -> Void
    ) {
        self.inner = inner
        cacheIdentities = inner as? any CacheIdentityProviding
        beginsLogicalRequest = TransportEvents.mayBeObserved(within: inner)
        self.authService = authService
        sharedRefresh = SingleFlightRefresh(
            authService: authService, refreshToken: refreshToken,
            loopGuard: loopGuard, elapsed: ErasedClock(clock).elapsed)
    }

    /// Sends `request`; if it carried our bearer token and got 401, refreshes the token (or
    /// joins the refresh in flight) and resends it once.
    ///
    /// - Returns: The response to the request, or to its resend after a refresh.
    /// - Throws: ``ReauthError`` when the token could not be refreshed, whatever `inner`
    ///   throws, or `CancellationError` when the calling task is cancelled.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        // One logical request: a LoggingTransport below sees the resend under the same identifier.
        guard beginsLogicalRequest else { return try await sendRenewing(request) }
        return try await TransportEvents.withinRequest { try await sendRenewing(request) }
    }

    private nonisolated(nonsending) func sendRenewing(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let sentToken = await ownToken(in: request) else { return try await inner.send(request) }
        let response = try await inner.send(request)
        guard isRenewable(request, answeredBy: response.head) else { return response }
        // What follows is reported as the send that got the 401, which a retry below may have made.
        switch try await TransportEvents.withLatestAttempt({ try await recovery(for: request, rejecting: sentToken) }) {
        case .resend(let resend): return try await TransportEvents.withNextAttempt { try await inner.send(resend) }
        case .unauthorizedStands: return response
        }
    }

    /// Streams `request`; a 401 to our token is decided on its head, so `consume` sees only the
    /// response to the resend. A 401 that stands after all (signed out meanwhile) reaches
    /// `consume` with its body, read within 64 KiB (empty past that).
    public func stream<Result: Sendable>(
        _ request: HTTPRequest,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        // Always one logical request: a stream's cost is its body, not this push.
        try await TransportEvents.withinRequest {
            guard let sentToken = await ownToken(in: request) else { return try await inner.stream(request, consume) }
            let step = try await inner.stream(request) { head, body -> StreamStep<Result> in
                guard isRenewable(request, answeredBy: head) else { return .consumed(try await consume(head, body)) }
                let held = (try? await body.collect(upTo: Self.maxHeldUnauthorizedBodyBytes)) ?? Data()
                return .intercepted(HTTPResponse(statusCode: head.statusCode, headers: head.headers, body: held, url: head.url))
            }
            let unauthorized: HTTPResponse
            switch step {
            case .consumed(let result): return result
            case .intercepted(let response): unauthorized = response
            }
            switch try await TransportEvents.withLatestAttempt({ try await recovery(for: request, rejecting: sentToken) }) {
            case .resend(let resend):
                return try await TransportEvents.withNextAttempt { try await inner.stream(resend, consume) }
            case .unauthorizedStands:
                return try await consume(unauthorized.head, HTTPBody(unauthorized.body))
            }
        }
    }

    /// The most bytes of a 401's body held while the layer decides whether to resend: a 401
    /// that stands after all is handed on with them. Error bodies are small; a larger one is
    /// handed on empty.
    package static let maxHeldUnauthorizedBodyBytes = 64 * 1024

    /// The bearer token `request` carries when it is ours to renew: `nil` for a request without
    /// one, or with the caller's own credential.
    private nonisolated(nonsending) func ownToken(in request: HTTPRequest) async -> String? {
        guard let sentToken = BearerCredential.token(in: request) else { return nil }
        // The token last seen as current is ours, whatever the service holds now: asking it
        // again (an actor hop on every request) would change nothing. A newer token the service
        // holds is noted by the first request that carries it; a 401 asks the service anyway.
        if !sharedRefresh.isLatestIssued(sentToken) {
            guard sharedRefresh.recognises(sentToken, current: await currentToken()) else { return nil }
        }
        return sentToken
    }

    /// Whether `head` is a 401 this layer answers by resending `request` with a newer token.
    private func isRenewable(_ request: HTTPRequest, answeredBy head: HTTPResponseHead) -> Bool {
        guard head.statusCode == 401 else { return false }
        // Another origin's 401 (after a cross-origin redirect) is not about our token.
        guard RedirectPolicy.answersOrigin(of: request, head.url) else { return false }
        return request.isReplayable // A single-pass body cannot be sent again.
    }

    /// What to do about a 401 to `sentToken`.
    private enum Recovery {
        /// Send this request, which carries a newer token.
        case resend(HTTPRequest)
        /// The 401 is the answer: signed out meanwhile, or no newer token could be had.
        case unauthorizedStands
    }

    /// Refreshes the token (or joins the refresh in flight, or takes the token that replaced
    /// `sentToken` meanwhile) and says what to send.
    private nonisolated(nonsending) func recovery(for request: HTTPRequest, rejecting sentToken: String) async throws -> Recovery {
        guard let current = await currentToken() else {
            return .unauthorizedStands // Signed out while the request was in flight: the 401 stands.
        }
        if current != sentToken {
            // Replaced while in flight (by a refresh or a new sign-in): reuse it, don't refresh.
            return .resend(try resendLate(request, with: current))
        }
        switch try await sharedRefresh.token(replacing: sentToken) {
        case .refreshed(let token):
            let resend = try Self.authorizing(request, with: token)
            TransportEvents.emit(ReauthEvent.resentWithNewToken(url: request.url))
            return .resend(resend)
        case .alreadyReplaced:
            guard let newer = await currentToken(), newer != sentToken else { return .unauthorizedStands }
            return .resend(try resendLate(request, with: newer))
        }
    }

    /// `request` with the token that replaced its own before its 401 arrived.
    private func resendLate(_ request: HTTPRequest, with token: String) throws(ReauthError) -> HTTPRequest {
        let resend = try Self.authorizing(request, with: token)
        TransportEvents.emit(ReauthEvent.resentWithCurrentToken(url: request.url))
        return resend
    }

    /// `request` with `token` as its bearer credential.
    ///
    /// - Throws: ``ReauthError/invalidToken(_:)`` when the token cannot go in a header.
    private static func authorizing(_ request: HTTPRequest, with token: String) throws(ReauthError) -> HTTPRequest {
        do { return try BearerCredential.authorizing(request, with: token) } catch { throw .invalidToken(error) }
    }

    private nonisolated(nonsending) func currentToken() async -> String? {
        guard let token = await authService.accessToken(), !token.isEmpty else { return nil }
        return token
    }

    /// The number of requests currently waiting for a refresh; lets tests line up races.
    var waitingRequestCount: Int { sharedRefresh.waitingCount }
}

extension TransportLayer {
    /// A ``ReauthTransport`` layer, for a ``TransportStack``.
    public static func reauth(
        authService: any AuthServiceProtocol, loopGuard: RefreshLoopGuard = RefreshLoopGuard(),
        clock: some Clock<Duration> = ContinuousClock(),
        refreshToken: @escaping @Sendable () async throws -> Void
    ) -> TransportLayer {
        TransportLayer {
            ReauthTransport(
                inner: $0, authService: authService, loopGuard: loopGuard, clock: clock,
                refreshToken: refreshToken)
        }
    }
}

extension ReauthTransport: CacheIdentityProviding {
    /// The client identity `inner` reports for `url`, or `nil` when it reports none or does not
    /// conform: this layer never changes which certificate a request is sent with.
    public func cacheIdentity(for url: URL) -> String? {
        cacheIdentities?.cacheIdentity(for: url)
    }
}

extension ReauthTransport: EventObservationScope {
    package var mayObserveEvents: Bool { beginsLogicalRequest }
}
