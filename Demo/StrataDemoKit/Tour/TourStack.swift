#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataPinning
import StrataSandbox

/// The README's recommended stack, assembled against the sandbox, with every layer's events
/// recorded for the narration.
struct TourStack: Sendable {
    /// The retry policy of the tour: short delays, so the demo never waits needlessly.
    static let retryPolicy = RetryPolicy(
        maxRetries: 2, baseDelay: .milliseconds(50), maxDelay: .milliseconds(200),
        maxRetryAfter: .seconds(1))

    let service: HTTPNetworkService
    let environment: DefaultAPIEnvironment
    /// The pin of the sandbox leaf's key.
    let pin: String
    let events = EventRecorder()
    let logs: LogCollector
    /// The token source both tour stacks share.
    let auth: InMemoryAuthService
    /// The terminal transport, pinned to ``pin``; the resilient stack sends through it too.
    let pinned: PinningTransport
    /// Trades the refresh token for a new access token and saves it in ``auth``.
    let refresh: @Sendable () async throws -> Void
    private let trustRoots: TrustRoots

    /// Builds the stack: `LoggingTransport → ReauthTransport → RetryTransport → ETagTransport →
    /// PinningTransport → URLSessionTransport`, under an `HTTPNetworkService`.
    ///
    /// - Throws: `CertificateError` or `PinningConfigurationError` if the sandbox's certificates
    ///   are unusable.
    init(sandbox: Sandbox, logs: LogCollector) throws {
        self.logs = logs
        environment = DefaultAPIEnvironment(baseURL: sandbox.baseURL)
        trustRoots = .certificates([try Certificate(der: sandbox.caCertificate.der)])
        pin = try Certificate(der: sandbox.serverCertificate.der).spkiPin
        let auth = InMemoryAuthService(accessToken: sandbox.expiredToken)
        self.auth = auth
        let pinned = try PinningTransport.validated(
            pinnedDomains: ["localhost": try PublicKeyPinningEvaluator(pins: [pin])],
            trustRoots: trustRoots)
        self.pinned = pinned
        // The refresh goes straight to the pinned transport: it must not be retried, re-authenticated or logged.
        let tokenService = HTTPNetworkService(transport: pinned)
        let environment = environment
        let refreshToken = sandbox.refreshToken
        let refresh: @Sendable () async throws -> Void = {
            let grant: TokenGrant = try await tokenService.request(
                to: SandboxAPI.refresh(refreshToken: refreshToken), via: environment)
            await auth.setAccessToken(grant.accessToken)
        }
        self.refresh = refresh
        let stack = ObservingTransport(
            inner: LoggingTransport(
                inner: ReauthTransport(
                    inner: RetryTransport(
                        inner: ETagTransport(inner: pinned, store: InMemoryETagStore()),
                        policy: Self.retryPolicy),
                    authService: auth, refreshToken: refresh),
                logger: logs.logger), observer: events.record)
        service = HTTPNetworkService(transport: stack, authService: auth)
    }

    /// Sends an authenticated GET through a `RetryTransport` over a `PinningTransport` pinned to
    /// ``Tour/wrongPin``.
    ///
    /// - Returns: The pin mismatch the transport reported.
    /// - Throws: ``TourFailure`` if the request succeeded, failed otherwise, or was retried.
    func sendWithWrongPin() async throws -> ServerTrustError {
        let wronglyPinned = try PinningTransport.validated(
            pinnedDomains: ["localhost": try PublicKeyPinningEvaluator(pins: [Tour.wrongPin])], trustRoots: trustRoots)
        let retried = EventRecorder()
        let service = HTTPNetworkService(
            transport: ObservingTransport(
                inner: RetryTransport(inner: wronglyPinned, policy: Self.retryPolicy),
                observer: retried.record),
            authService: auth)
        do {
            let _: Todo = try await service.request(to: SandboxAPI.todo(id: 1), via: environment)
        } catch NetworkError.transport(let error as TransportError) {
            guard let trust = error.serverTrustError, case .pinMismatch = trust else {
                throw TourFailure("expected a pin mismatch, got: \(error)")
            }
            guard retried.all(RetryEvent.self).isEmpty else { throw TourFailure("RetryTransport retried a pin mismatch") }
            return trust
        }
        throw TourFailure("the transport pinned to a wrong key accepted the sandbox")
    }
}
