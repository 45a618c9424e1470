#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing

@Suite("ETagTransport stale-while-revalidate and stale-if-error (RFC 5861)", .timeLimit(.minutes(1)))
struct StaleResponseTests {
    private func refreshEvents(_ cache: CacheHarness) -> [ETagEvent.RefreshOutcome] {
        cache.etagEvents().compactMap { if case .backgroundRefresh(_, let outcome) = $0 { outcome } else { nil } }
    }

    @Test(
        "RFC 5861 §3: 50 concurrent callers within stale-while-revalidate get the stale response at once; exactly one background refresh updates the entry"
    )
    func staleWhileRevalidate() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=10, stale-while-revalidate=60"])
        let first = try await cache.get()
        cache.advance(15)
        cache.origin.change()
        let gate = AsyncGate()
        cache.origin.hold(at: gate)
        // The refresh is held at the gate while all 50 answer: none of them waits for it.
        let responses = try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
            for _ in 0..<50 { group.addTask { try await cache.get() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(responses.allSatisfy { $0.source == .stale && $0.text == first.text && $0.headers["Age"] == "15" })
        gate.open()
        await cache.transport.backgroundRefreshesSettled()
        #expect(cache.origin.counts == (2, 0), "one download for the first GET, one for the single refresh")
        #expect(refreshEvents(cache) == [.completed])
        let next = try await cache.get()
        #expect(next.source == .fresh && next.text == cache.origin.body)
    }

    @Test("RFC 5861 §3: past the stale-while-revalidate window the caller waits for revalidation")
    func beyondStaleWhileRevalidate() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=10, stale-while-revalidate=5"])
        _ = try await cache.get()
        cache.advance(16)
        #expect(try await cache.get().source == .revalidated)
        #expect(refreshEvents(cache).isEmpty)
    }

    @Test("at the limit of concurrent background refreshes, the stale response is still served and the refresh is skipped")
    func refreshLimit() async throws {
        let cache = CacheHarness(
            headers: ["Cache-Control": "max-age=1, stale-while-revalidate=60"],
            freshness: FreshnessPolicy(maxBackgroundRefreshes: 1))
        let other = makeRequest("https://api.example.com/other")
        _ = try await cache.get()
        _ = try await cache.events.observing(cache.transport).send(other)
        cache.advance(2)
        let gate = AsyncGate()
        cache.origin.hold(at: gate)
        #expect(try await cache.get().source == .stale)
        #expect(try await cache.events.observing(cache.transport).send(other).source == .stale)
        #expect(refreshEvents(cache) == [.skippedAtLimit])
        gate.open()
        await cache.transport.backgroundRefreshesSettled()
        #expect(refreshEvents(cache) == [.skippedAtLimit, .completed])
    }

    @Test("shutDown cancels a running background refresh and starts no more; stale responses are still served")
    func shutDownCancelsRefreshes() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=1, stale-while-revalidate=60"])
        _ = try await cache.get()
        cache.advance(2)
        cache.origin.hold(at: AsyncGate()) // Never opens: only cancellation ends the refresh.
        #expect(try await cache.get().source == .stale)
        await cache.transport.shutDown()
        #expect(refreshEvents(cache) == [.cancelled])
        #expect(try await cache.get().source == .stale)
        #expect(refreshEvents(cache) == [.cancelled])
    }

    @Test("releasing the transport cancels its running background refresh")
    func releaseCancelsRefreshes() async throws {
        let clock = TestClock()
        let origin = ScriptedOrigin(
            clock: clock, wallClockOrigin: CacheHarness.epoch,
            headers: ["Cache-Control": "max-age=1, stale-while-revalidate=60"])
        let counter = EventCounter()
        let events = RecordingObserver()
        var transport: ETagTransport? = ETagTransport(
            inner: origin.transport, clock: clock,
            wallClockOrigin: CacheHarness.epoch)
        let request = makeRequest("https://api.example.com/config")
        _ = try await transport?.send(request)
        clock.advance(by: .seconds(2))
        origin.hold(at: AsyncGate()) // Never opens: only cancellation ends the refresh.
        _ = try await ObservingTransport(inner: transport!) {
            events.record($0); counter.record($0)
        }.send(request)
        transport = nil
        await counter.wait(for: "etag.background-refresh", count: 1)
        #expect(events.events(ETagEvent.self).last == .backgroundRefresh(request.url, outcome: .cancelled))
    }

    @Test(
        "a caller that must go to the network while a background refresh runs sends its own request; it does not wait for the refresh, which no deadline bounds"
    )
    func foregroundDoesNotJoinRefresh() async throws {
        let clock = TestClock()
        let origin = ScriptedOrigin(
            clock: clock, wallClockOrigin: CacheHarness.epoch,
            headers: ["Cache-Control": "max-age=1, stale-while-revalidate=5"])
        let gate = AsyncGate()
        let (arrivals, arrived) = AsyncStream<Void>.makeStream()
        let sent = LockedValue(0)
        let inner = ClosureTransport { request in
            // The second request is the background refresh: held until the test ends.
            if sent.withLock({
                $0 += 1; return $0
            }) == 2 {
                arrived.yield()
                await gate.wait()
            }
            return try await origin.respond(request)
        }
        let transport = ETagTransport(inner: inner, clock: clock, wallClockOrigin: CacheHarness.epoch)
        let request = makeRequest("https://api.example.com/config")
        _ = try await transport.send(request)
        clock.advance(by: .seconds(2))
        #expect(try await transport.send(request).source == .stale)
        var refreshes = arrivals.makeAsyncIterator()
        _ = await refreshes.next()
        // Past stale-while-revalidate this identical request must revalidate: by itself. (Its
        // deadline only matters if it waited for the refresh, which never ends.)
        clock.advance(by: .seconds(10))
        #expect(try await RequestDeadline.withTimeout(.seconds(30)) { try await transport.send(request) }.source == .revalidated)
        gate.open()
        await transport.backgroundRefreshesSettled()
    }

    @Test("a background refresh runs without the ResponseBodyLimit and endpoint policy task-local of the caller that started it")
    func refreshWithoutCallerScope() async throws {
        let clock = TestClock()
        let origin = ScriptedOrigin(
            clock: clock, wallClockOrigin: CacheHarness.epoch,
            headers: ["Cache-Control": "max-age=1, stale-while-revalidate=60"])
        let seen = LockedValue<[(limit: Int?, policy: EndpointCachePolicy)]>([])
        let inner = ClosureTransport { request in
            seen.withLock { $0.append((ResponseBodyLimit.current, EndpointCachePolicy.current)) }
            return try await origin.respond(request)
        }
        let transport = ETagTransport(inner: inner, clock: clock, wallClockOrigin: CacheHarness.epoch)
        let request = makeRequest("https://api.example.com/config")
        try await ResponseBodyLimit.withMaxBytes(1_000) {
            try await EndpointCachePolicy.reuse(for: .seconds(1)).apply {
                _ = try await transport.send(request)
                clock.advance(by: .seconds(2))
                #expect(try await transport.send(request).source == .stale)
            }
        }
        await transport.backgroundRefreshesSettled()
        let refresh = try #require(seen.withLock { $0 }.last)
        #expect(seen.withLock { $0.count } == 2 && refresh.limit == nil && refresh.policy == .standard)
    }

    @Test("RFC 5861 §4: a 503 while revalidating is answered with the stale response within stale-if-error, reported as an event")
    func staleIfErrorOn503() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=10, stale-if-error=60"])
        let first = try await cache.get()
        cache.advance(30)
        cache.origin.answer(status: 503)
        let stale = try await cache.get()
        #expect(stale.source == .stale && stale.statusCode == 200 && stale.text == first.text && stale.headers["Age"] == "30")
        #expect(
            cache.etagEvents().contains(
                .servedStale(
                    URL(string: cache.url)!, age: 30,
                    reason: .originFailed(failure: "HTTP 503"))))
        // Past the window, the 503 is the answer.
        cache.advance(41)
        #expect(try await cache.get().statusCode == 503)
        // The entry was kept: once the origin is back, it revalidates.
        cache.origin.answer(status: nil)
        #expect(try await cache.get().source == .revalidated)
    }

    @Test("RFC 5861 §4: a network failure or a timeout while revalidating is answered with the stale response")
    func staleIfErrorOnFailure() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=10, stale-if-error=60"])
        _ = try await cache.get()
        cache.advance(20)
        cache.origin.fail(with: TransportError(.cannotConnect))
        #expect(try await cache.get().source == .stale)
        cache.origin.fail(with: TransportError(.timedOut))
        #expect(try await cache.get().source == .stale)
        // A TLS failure is not an outage: the origin could not be verified.
        cache.origin.fail(with: TransportError(.tls))
        await #expect(throws: TransportError.self) { try await cache.get() }
    }

    @Test("the policy's stale-if-error default applies to responses that name none; the request's own window wins")
    func staleIfErrorDefault() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=10"], freshness: FreshnessPolicy(staleIfError: .seconds(60)))
        _ = try await cache.get()
        cache.advance(30)
        cache.origin.answer(status: 502)
        #expect(try await cache.get().source == .stale)
        #expect(try await cache.get(["Cache-Control": "stale-if-error=5"]).statusCode == 502)

        let none = CacheHarness(headers: ["Cache-Control": "max-age=10"])
        _ = try await none.get()
        none.advance(30)
        none.origin.answer(status: 502)
        #expect(try await none.get().statusCode == 502)
    }

    @Test("RFC 5861 §4 in a stream: a 503 head while revalidating is answered with the stale body")
    func streamedStaleIfError() async throws {
        let cache = CacheHarness(headers: ["Cache-Control": "max-age=10, stale-if-error=60"])
        _ = try await cache.get()
        cache.advance(20)
        cache.origin.answer(status: 503)
        let (status, text) = try await cache.transport.stream(makeRequest(cache.url)) { head, body in
            (head.statusCode, String(decoding: try await body.collect(upTo: 1 << 20), as: UTF8.self))
        }
        #expect(status == 200 && text == cache.origin.body)
    }
}
