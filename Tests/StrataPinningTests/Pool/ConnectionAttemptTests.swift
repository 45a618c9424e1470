import Strata
@testable import StrataPinning
import Testing

@Suite("A connection attempt tells the HTTP/2 pool what its host speaks exactly once")
struct ConnectionAttemptTests {
    /// An HTTP/2 pool that is only asked for routes; nothing here ever connects.
    private static func pool() throws -> HTTP2Pool {
        HTTP2Pool(
            maxConnectionsPerHost: 2, settings: try .neverConnecting(),
            timing: HTTP2Multiplexer.Timing(idleTimeout: .seconds(30), pingInterval: .seconds(30)),
            idleTimeout: .seconds(30))
    }

    /// A new attempt to `localhost:1`, which the pool counts as the host's.
    private static func attempt(_ pool: HTTP2Pool) async throws -> ConnectionAttempt {
        guard case let .connect(attempt) = try await pool.route(host: "localhost", port: 1, deadline: .now + .seconds(10)) else {
            throw TransportError(.cannotConnect, message: "the pool did not ask for a connection")
        }
        #expect(attempt.counted)
        return attempt
    }

    @Test("a failure reported twice ends one attempt: the attempt that took over still holds the next request back")
    func failureCountsOnce() async throws {
        let pool = try Self.pool()
        let first = try await Self.attempt(pool)
        first.report(.failed)
        let second = try await Self.attempt(pool)
        // Told again while the host's next attempt runs: it must not count that one as over.
        first.report(.failed)
        // While the host's protocol is unknown and an attempt runs, a request waits (here past its deadline).
        let waiting = await #expect(throws: TransportError.self) {
            try await pool.route(host: "localhost", port: 1, deadline: .now)
        }
        #expect(waiting?.kind == .timedOut)
        second.report(.failed)
        #expect(pool.hostCount == 0)
    }

    @Test("what an attempt reports after its first report is ignored")
    func laterReportsIgnored() async throws {
        let pool = try Self.pool()
        let attempt = try await Self.attempt(pool)
        attempt.report(.failed)
        attempt.report(.http1)
        // An HTTP/1.1 answer would be remembered (an entry); the failure left nothing.
        #expect(pool.hostCount == 0)
    }
}
