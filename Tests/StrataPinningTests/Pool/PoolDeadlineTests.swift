import Strata
@testable import StrataPinning
import Testing
import TestSupport

@Suite("The whole-request deadline covers waiting for a free connection")
struct PoolDeadlineTests {
    /// A pool allowing one connection per host; nothing here ever connects.
    private static func poolOfOne() throws -> ConnectionPool {
        ConnectionPool(settings: try .neverConnecting(), maxConnectionsPerHost: 1, idleTimeout: .seconds(30))
    }

    @Test("a waiter at the per-host limit gives up at its deadline with timedOut and leaves the queue")
    func waiterTimesOut() async throws {
        let pool = try Self.poolOfOne()
        let held = try await pool.acquire(host: "localhost", port: 1, deadline: .now + .seconds(10))
        let start = ContinuousClock.now
        do {
            _ = try await pool.acquire(host: "localhost", port: 1, deadline: start + .milliseconds(50))
            Issue.record("the second acquire should have timed out")
        } catch let error as TransportError {
            #expect(error.kind == .timedOut)
            #expect(error.message.contains("waiting for a free connection"))
        }
        // The message proves the pool's own deadline ended the wait; this bound only catches a wait
        // far past it. Tighter ones measured the parallel suite on two cores (5.4 and 7.6 s in
        // two runs against a 50 ms deadline), not the pool.
        #expect(ContinuousClock.now - start < TestTimeScale.scaled(.seconds(30)))
        #expect(pool.counts(host: "localhost", port: 1) == (open: 1, waiting: 0))
        pool.release(held.connection, keepAlive: false)
        #expect(pool.counts(host: "localhost", port: 1) == (open: 0, waiting: 0))
    }

    @Test("a waiter served before its deadline gets the slot")
    func waiterServed() async throws {
        let pool = try Self.poolOfOne()
        let held = try await pool.acquire(host: "localhost", port: 1, deadline: .now + .seconds(10))
        async let second = pool.acquire(host: "localhost", port: 1, deadline: .now + .seconds(10))
        while pool.counts(host: "localhost", port: 1).waiting == 0 { await Task.yield() }
        pool.release(held.connection, keepAlive: true)
        let lease = try await second
        #expect(lease.connection === held.connection)
        pool.release(lease.connection, keepAlive: false)
    }
}
