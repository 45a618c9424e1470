import Strata
@testable import StrataPinning
import Testing

@Suite("A slot whose new connection became HTTP/2 leaves the pool with its unit of the connection limit")
struct ConnectionPoolHandOverTests {
    /// A pool allowing one connection per host under a limit of `threads`; nothing here ever connects.
    private static func pool(threads: ConnectionThreadLimit) throws -> ConnectionPool {
        ConnectionPool(settings: try .neverConnecting(threads: threads), maxConnectionsPerHost: 1, idleTimeout: .seconds(30))
    }

    @Test("the handed-over slot leaves the pool and the host's entry, its unit still taken for its new owner")
    func unitStaysTaken() async throws {
        let threads = ConnectionThreadLimit(maximum: 2)
        let pool = try Self.pool(threads: threads)
        let lease = try await pool.acquire(host: "localhost", port: 1, deadline: .now + .seconds(10))
        pool.handOver(lease.connection)
        #expect(pool.counts(host: "localhost", port: 1) == (open: 0, waiting: 0))
        #expect(pool.hostCount == 0)
        #expect(threads.inUse == 1)
    }

    /// Takes the host's only slot, queues a second request for the host, and hands the slot over:
    /// the handed-over slot and the queued request.
    private static func handOverWithWaiter(_ pool: ConnectionPool) async throws
        -> (handedOver: PooledConnection, waiter: Task<ConnectionPool.Lease, any Error>)
    {
        let held = try await pool.acquire(host: "localhost", port: 1, deadline: .now + .seconds(10))
        let waiter = Task { try await pool.acquire(host: "localhost", port: 1, deadline: .now + .seconds(10)) }
        while pool.counts(host: "localhost", port: 1).waiting == 0 { await Task.yield() }
        pool.handOver(held.connection)
        return (held.connection, waiter)
    }

    @Test("a request waiting for the host gets a new slot with a unit of its own")
    func waiterGetsNewSlot() async throws {
        let threads = ConnectionThreadLimit(maximum: 2)
        let pool = try Self.pool(threads: threads)
        let (handedOver, waiter) = try await Self.handOverWithWaiter(pool)
        let lease = try await waiter.value
        #expect(lease.connection !== handedOver)
        #expect(pool.counts(host: "localhost", port: 1) == (open: 1, waiting: 0))
        #expect(threads.inUse == 2)
        pool.release(lease.connection, keepAlive: false)
        #expect(threads.inUse == 1)
    }

    @Test("at the process-wide limit, a request waiting for the host fails at once, as a new one would")
    func waiterFailsAtLimit() async throws {
        let threads = ConnectionThreadLimit(maximum: 1)
        let pool = try Self.pool(threads: threads)
        let (_, waiter) = try await Self.handOverWithWaiter(pool)
        let failure = await #expect(throws: TransportError.self) { try await waiter.value }
        #expect(failure?.kind == .cannotConnect)
        #expect(pool.counts(host: "localhost", port: 1) == (open: 0, waiting: 0))
        #expect(threads.inUse == 1)
    }
}
