#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing

@Suite("ETagTransport coalesces concurrent identical GETs into one exchange", .timeLimit(.minutes(1)))
struct CoalescingTests {
    /// Starts `count` GETs with `headers`, waits until all but one wait on the first, and returns their tasks.
    private func startGets(_ cache: CacheHarness, count: Int, headers: [String: String] = [:])
        async -> [Task<HTTPResponse, any Error>]
    {
        let tasks = (0..<count).map { _ in Task { try await cache.get(headers) } }
        await cache.counter.wait(for: "etag.coalesced", count: count - 1)
        return tasks
    }

    private func coalescedCount(_ cache: CacheHarness) -> Int {
        cache.etagEvents().filter { if case .coalesced = $0 { true } else { false } }.count
    }

    @Test("100 concurrent identical GETs that miss make 1 upstream request and all get its response")
    func hundredCallersOneRequest() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "no-cache"])
        let gate = AsyncGate()
        cache.origin.hold(at: gate)
        let tasks = await startGets(cache, count: 100)
        gate.open()
        for task in tasks {
            let response = try await task.value
            #expect(response.statusCode == 200 && response.text == cache.origin.body)
        }
        #expect(cache.origin.requests == 1)
    }

    @Test("100 concurrent GETs of a stored entry that needs revalidation make 1 conditional request")
    func hundredRevalidationsOneRequest() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "no-cache"])
        _ = try await cache.get()
        let gate = AsyncGate()
        cache.origin.hold(at: gate)
        let tasks = await startGets(cache, count: 100)
        gate.open()
        for task in tasks { #expect(try await task.value.source == .revalidated) }
        #expect(cache.origin.counts == (1, 1))
    }

    @Test("a cancelled waiter gets CancellationError at once; the other callers still get the response")
    func cancelledWaiter() async throws {
        let cache = CacheHarness(headers: [:])
        let gate = AsyncGate()
        cache.origin.hold(at: gate)
        let tasks = await startGets(cache, count: 10)
        tasks[5].cancel()
        await #expect(throws: CancellationError.self) { try await tasks[5].value }
        gate.open()
        for (index, task) in tasks.enumerated() where index != 5 {
            #expect(try await task.value.text == cache.origin.body)
        }
        #expect(cache.origin.requests == 1)
    }

    @Test("when the caller that sent the request is cancelled, a waiter sends it again and every other caller gets the response")
    func cancelledLeader() async throws {
        let cache = CacheHarness(headers: [:])
        let gate = AsyncGate()
        cache.origin.hold(at: gate)
        let leader = Task { try await cache.get() }
        await cache.counter.wait(for: "etag.miss", count: 1)
        let waiters = (0..<9).map { _ in Task { try await cache.get() } }
        await cache.counter.wait(for: "etag.coalesced", count: 9)
        leader.cancel()
        await #expect(throws: (any Error).self) { try await leader.value }
        // One waiter took over the request; the 8 others joined it again.
        await cache.counter.wait(for: "etag.coalesced", count: 17)
        gate.open()
        for waiter in waiters { #expect(try await waiter.value.text == cache.origin.body) }
        // The cancelled request never reached the origin (it was held at the gate); the
        // waiter that took over made the one exchange.
        #expect(cache.origin.requests == 1)
    }

    @Test("requests that differ in a header, in partition or in method are not coalesced")
    func differentRequestsAreSeparate() async throws {
        let cache = CacheHarness(headers: [:])
        let gate = AsyncGate()
        cache.origin.hold(at: gate)
        let tasks = [
            Task { try await cache.get(["Authorization": "Bearer alice"]) },
            Task { try await cache.get(["Authorization": "Bearer bob"]) },
            Task { try await cache.get(["Accept": "text/plain"]) },
            Task { try await cache.get() },
        ]
        await cache.counter.wait(for: "etag.miss", count: 4)
        gate.open()
        for task in tasks { _ = try await task.value }
        #expect(cache.origin.requests == 4 && coalescedCount(cache) == 0)
    }

    @Test("GETs of two resources asked for in turn each join the request of their own resource")
    func alternatingResourcesJoinTheirOwn() async throws {
        // The table files flights under the store key's hash; here the key changes on every
        // request, so each must be told apart from the other resource's by its hash and text.
        let cache = CacheHarness(headers: [:])
        let gate = AsyncGate()
        cache.origin.hold(at: gate)
        let other = cache.url + "?page=2"
        func send(_ url: String) -> Task<HTTPResponse, any Error> {
            Task { try await cache.observed.send(makeRequest(url)) }
        }
        var tasks = [send(cache.url)]
        await cache.counter.wait(for: "etag.miss", count: 1)
        tasks.append(send(other))
        await cache.counter.wait(for: "etag.miss", count: 2)
        for (index, url) in [cache.url, other, cache.url, other].enumerated() {
            tasks.append(send(url))
            await cache.counter.wait(for: "etag.coalesced", count: index + 1)
        }
        gate.open()
        for task in tasks { #expect(try await task.value.statusCode == 200) }
        #expect(cache.origin.requests == 2 && coalescedCount(cache) == 4)
    }

    @Test("a failed exchange is every waiter's error")
    func sharedFailure() async throws {
        let cache = CacheHarness(headers: [:])
        let gate = AsyncGate()
        cache.origin.hold(at: gate)
        cache.origin.fail(with: TransportError(.connectionLost))
        let tasks = await startGets(cache, count: 5)
        gate.open()
        for task in tasks {
            await #expect(throws: TransportError.self) { try await task.value }
        }
    }

    @Test("a waiter's own RequestDeadline ends its wait with timedOut; the request it joined carries on for the others")
    func waiterDeadline() async throws {
        let cache = CacheHarness(headers: [:])
        let gate = AsyncGate()
        cache.origin.hold(at: gate)
        let leader = Task { try await cache.get() }
        await cache.counter.wait(for: "etag.miss", count: 1)
        // No terminal sees a waiter: only the wait itself can honour this deadline. (The leader
        // is held until the waiter has ended, so the waiter cannot have had the leader's answer.)
        await #expect {
            try await RequestDeadline.withTimeout(.milliseconds(50)) { try await cache.get() }
        } throws: { ($0 as? TransportError)?.kind == .timedOut }
        gate.open()
        #expect(try await leader.value.text == cache.origin.body)
        #expect(cache.origin.requests == 1, "the waiter sent nothing of its own")
    }

    @Test("a caller with its own ResponseBodyLimit is not coalesced: it sends its own request, under its own limit")
    func bodyLimitNotCoalesced() async throws {
        let clock = TestClock()
        let origin = ScriptedOrigin(clock: clock, wallClockOrigin: CacheHarness.epoch)
        let gate = AsyncGate()
        origin.hold(at: gate)
        let limits = LockedValue<[Int?]>([])
        let cache = ETagTransport(
            inner: ClosureTransport { request in
                limits.withLock { $0.append(ResponseBodyLimit.current) }
                return try await origin.respond(request)
            }, clock: clock, wallClockOrigin: CacheHarness.epoch)
        // Whether each caller sends (a miss) or waits for another's request (coalesced).
        let (decisions, decided) = AsyncStream<String>.makeStream()
        let transport = ObservingTransport(inner: cache) { observed in
            if ["etag.miss", "etag.coalesced"].contains(observed.event.name) { decided.yield(observed.event.name) }
        }
        let request = makeRequest("https://api.example.com/config")
        var decision = decisions.makeAsyncIterator()
        let leader = Task { try await transport.send(request) }
        #expect(await decision.next() == "etag.miss")
        let limited = Task { try await ResponseBodyLimit.withMaxBytes(5) { try await transport.send(request) } }
        // Its own miss: it does not wait for the leader's response, read under another limit.
        #expect(await decision.next() == "etag.miss")
        gate.open()
        _ = try await (leader.value, limited.value)
        #expect(limits.withLock { $0 }.compactMap { $0 } == [5])
    }

    @Test("a leader whose own deadline passed does not fail its waiters: a waiter sends the request itself")
    func leaderDeadlineIsItsOwn() async throws {
        let clock = TestClock()
        let gate = AsyncGate()
        let calls = LockedValue(0)
        let cache = ETagTransport(
            inner: ClosureTransport { request in
                guard
                    calls.withLock({ count -> Int in
                        count += 1
                        return count
                    }) > 1
                else {
                    // The leader's terminal: its deadline (already over) is what ends it, once the waiter joined.
                    await gate.wait()
                    throw RequestDeadline.timedOut(method: request.method, url: request.url)
                }
                return HTTPResponse(statusCode: 200, headers: ["ETag": "\"1\""], body: Data("fresh".utf8), url: request.url)
            }, clock: clock, wallClockOrigin: CacheHarness.epoch)
        let (decisions, decided) = AsyncStream<String>.makeStream()
        let transport = ObservingTransport(inner: cache) { observed in
            if ["etag.miss", "etag.coalesced"].contains(observed.event.name) { decided.yield(observed.event.name) }
        }
        let request = makeRequest("https://api.example.com/config")
        var decision = decisions.makeAsyncIterator()
        let leader = Task { try await RequestDeadline.withTimeout(.zero) { try await transport.send(request) } }
        #expect(await decision.next() == "etag.miss")
        let waiter = Task { try await transport.send(request) }
        #expect(await decision.next() == "etag.coalesced")
        gate.open()
        await #expect { try await leader.value } throws: { ($0 as? TransportError)?.kind == .timedOut }
        #expect(try await waiter.value.text == "fresh")
        #expect(calls.withLock { $0 } == 2)
    }
}
