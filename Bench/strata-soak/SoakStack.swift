#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataPinning
import TLSTestServer

/// The recommended stack, Logging → Reauth → Retry → ETag → Pinning, pointed at a
/// ``SoakServer``, with the counters the checks read.
struct SoakStack: Sendable {
    let transport: any Transport
    let auth: InMemoryAuthService
    let logger: CountingLogger
    /// How many times the refresh closure ran.
    let refreshes: LockedValue<Int>

    init(server: SoakServer) throws {
        let fixtures = TLSLoopbackServer.fixtures
        let ca = try Certificate(pem: String(contentsOf: fixtures.appendingPathComponent("ca.pem"), encoding: .utf8))
        let leaf = try Certificate(pem: String(contentsOf: fixtures.appendingPathComponent("leaf-ec.pem"), encoding: .utf8))
        let pinning = PinningTransport(
            pinnedDomains: ["localhost": try PublicKeyPinningEvaluator(pins: [leaf.spkiPin])],
            trustRoots: .certificates([ca]))
        // Retries back off for milliseconds, not the default half second: the faults are dense
        // by design, and the soak is about correctness and resources, not waiting.
        let retry = RetryTransport(
            inner: ETagTransport(inner: pinning),
            policy: RetryPolicy(maxRetries: 5, baseDelay: .milliseconds(1), maxDelay: .milliseconds(20)))
        let auth = InMemoryAuthService(accessToken: server.currentToken)
        let refreshes = LockedValue(0)
        // A refresh loop is still refused, at a rate scaled to this load (one expiry per
        // thousand requests is several per second here).
        let reauth = ReauthTransport(
            inner: retry, authService: auth,
            loopGuard: RefreshLoopGuard(maxRefreshes: 5, window: .milliseconds(50))
        ) {
            refreshes.withLock { $0 += 1 }
            await auth.setAccessToken(server.currentToken)
        }
        logger = CountingLogger()
        transport = LoggingTransport(inner: reauth, logger: logger)
        self.auth = auth
        self.refreshes = refreshes
    }
}

/// A logger at debug level that keeps counts, not lines, and notices any access token in what
/// it is given (the redaction must have removed them).
final class CountingLogger: StrataLogger {
    private let counts = LockedValue((lines: 0, leakedTokens: 0))

    var lines: Int { counts.withLock { $0.lines } }
    var leakedTokens: Int { counts.withLock { $0.leakedTokens } }

    func isEnabled(_ level: LogLevel) -> Bool { level >= .debug }

    func record(_ level: LogLevel, _ message: String, metadata: LogMetadata) {
        let leaked = message.contains("token-") || metadata.values.contains { $0.contains("token-") }
        counts.withLock {
            $0.lines += 1
            if leaked { $0.leakedTokens += 1 }
        }
    }
}
