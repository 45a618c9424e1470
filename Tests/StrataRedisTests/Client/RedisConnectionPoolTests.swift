import Foundation
@testable import StrataRedis
import Testing

@Suite("RedisConnectionPool: bounded lanes, waiters first come first served")
struct RedisConnectionPoolTests {
    private func makePool(_ maxConnections: Int) -> RedisConnectionPool {
        let settings = RedisConnection.Settings(
            endpoint: try! RedisEndpoint(url: URL(string: "redis://127.0.0.1:1")!),
            limits: RESPLimits(), connectTimeout: .seconds(1),
            commandTimeout: .seconds(1))
        return RedisConnectionPool(maxConnections: maxConnections) { RedisConnectionSlot(index: $0, settings: settings, retire: $1) }
    }

    @Test("no more lanes than maxConnections are created; a released lane is reused")
    func bounded() async {
        let pool = makePool(2)
        let first = await pool.acquire(timeout: .seconds(5))
        let second = await pool.acquire(timeout: .seconds(5))
        #expect(first != nil && second != nil && first !== second)
        pool.release(first!)
        let third = await pool.acquire(timeout: .seconds(5))
        #expect(third === first)
    }

    @Test("a caller finding every lane busy gets the next one released")
    func waiterGetsReleasedLane() async {
        let pool = makePool(1)
        let only = await pool.acquire(timeout: .seconds(5))!
        async let waiting = pool.acquire(timeout: .seconds(60))
        // The waiter may not be in line yet; either way it must end up with the released lane.
        pool.release(only)
        #expect(await waiting === only)
    }

    @Test("a caller that waits longer than its timeout gets no lane, and the lane stays usable")
    func waiterTimesOut() async {
        let pool = makePool(1)
        let only = await pool.acquire(timeout: .seconds(5))!
        #expect(await pool.acquire(timeout: .milliseconds(1)) == nil)
        pool.release(only)
        #expect(await pool.acquire(timeout: .milliseconds(1)) === only)
    }

    @Test("an idle lane retires: the pool forgets it and opens a new lane next time; a leased lane does not")
    func idleLaneRetires() async {
        let pool = makePool(1)
        let lane = await pool.acquire(timeout: .seconds(5))!
        #expect(!pool.retire(lane))
        pool.release(lane)
        #expect(pool.retire(lane))
        #expect(!pool.retire(lane))
        // The retired lane freed its place under maxConnections (1): a new lane, not a wait.
        let next = await pool.acquire(timeout: .milliseconds(1))
        #expect(next != nil && next !== lane)
    }
}
