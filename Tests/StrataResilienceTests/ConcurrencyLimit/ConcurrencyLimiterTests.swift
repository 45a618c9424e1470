import Testing

@testable import StrataResilience

@Suite("One group's places and queue, as a value")
struct ConcurrencyLimiterTests {
    private func limiter(maxInFlight: Int = 2, maxQueued: Int = 2) -> ConcurrencyLimiter<String> {
        ConcurrencyLimiter(policy: ConcurrencyLimitPolicy(maxInFlight: maxInFlight, maxQueued: maxQueued))
    }

    @Test("calls take free places, then queue, then are rejected once the queue is full")
    func admissionOrder() {
        var limiter = limiter()
        #expect(limiter.acquire(id: 1, waiter: "a") == .granted)
        #expect(limiter.acquire(id: 2, waiter: "b") == .granted)
        #expect(limiter.acquire(id: 3, waiter: "c") == .queued(position: 1))
        #expect(limiter.acquire(id: 4, waiter: "d") == .queued(position: 2))
        #expect(limiter.acquire(id: 5, waiter: "e") == .rejected)
        #expect(limiter.inFlight == 2)
        #expect(limiter.queued == 2)
    }

    @Test("a freed place goes to the first waiter, first come first served")
    func fifoHandOver() {
        var limiter = limiter()
        _ = limiter.acquire(id: 1, waiter: "a")
        _ = limiter.acquire(id: 2, waiter: "b")
        _ = limiter.acquire(id: 3, waiter: "c")
        _ = limiter.acquire(id: 4, waiter: "d")
        #expect(limiter.release() == "c")
        #expect(limiter.release() == "d")
        #expect(limiter.inFlight == 2)
        #expect(limiter.release() == nil)
        #expect(limiter.inFlight == 1)
    }

    @Test("a newcomer never takes a free place while someone waits")
    func noBarging() {
        var limiter = limiter(maxInFlight: 1)
        _ = limiter.acquire(id: 1, waiter: "a")
        _ = limiter.acquire(id: 2, waiter: "b")
        let whileWaiting = limiter.tryAcquire()
        #expect(!whileWaiting)
        #expect(limiter.release() == "b")
        let afterHandOver = limiter.tryAcquire()
        #expect(!afterHandOver)
    }

    @Test("a waiter that leaves (timeout, cancellation) frees its place in the queue")
    func removal() {
        var limiter = limiter(maxInFlight: 1, maxQueued: 1)
        _ = limiter.acquire(id: 1, waiter: "a")
        _ = limiter.acquire(id: 2, waiter: "b")
        #expect(limiter.acquire(id: 3, waiter: "c") == .rejected)
        #expect(limiter.remove(id: 2) == "b")
        #expect(limiter.remove(id: 2) == nil)
        #expect(limiter.acquire(id: 4, waiter: "d") == .queued(position: 1))
    }

    @Test("a waiter already handed a place cannot be removed")
    func removalAfterGrant() {
        var limiter = limiter(maxInFlight: 1)
        _ = limiter.acquire(id: 1, waiter: "a")
        _ = limiter.acquire(id: 2, waiter: "b")
        #expect(limiter.release() == "b")
        #expect(limiter.remove(id: 2) == nil)
    }

    @Test("a group with nothing in flight and nothing queued is idle")
    func idle() {
        var limiter = limiter()
        #expect(limiter.isIdle)
        let acquired = limiter.tryAcquire()
        #expect(acquired)
        #expect(!limiter.isIdle)
        _ = limiter.release()
        #expect(limiter.isIdle)
    }

    @Test("a long run of waiters keeps the queue compact and in order")
    func manyWaiters() {
        var limiter = ConcurrencyLimiter<Int>(policy: ConcurrencyLimitPolicy(maxInFlight: 1, maxQueued: 1_000))
        _ = limiter.acquire(id: 0, waiter: 0)
        for id in 1...500 { _ = limiter.acquire(id: UInt64(id), waiter: id) }
        for id in 1...500 { #expect(limiter.release() == id) }
        #expect(limiter.queued == 0)
    }
}
