#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting

/// A pretend origin on an injected clock: answers `GET` with its current body and the headers a
/// test sets (plus `ETag` and a `Date` that agrees with the clock), `304` when `If-None-Match`
/// names its ETag, and counts what it sent. A test can make it fail (throw or answer a status)
/// or hold every request at a gate until the test opens it.
final class ScriptedOrigin: Sendable {
    private struct State {
        var version = 1
        var headers: HTTPHeaders = [:]
        var failure: (any Error)?
        var status: Int?
        var full = 0
        var notModified = 0
        var gate: AsyncGate?
        var delay: Duration = .zero
    }

    private let state = LockedValue(State())
    let clock: TestClock
    let wallClockOrigin: Date

    init(clock: TestClock, wallClockOrigin: Date, headers: HTTPHeaders = [:]) {
        self.clock = clock
        self.wallClockOrigin = wallClockOrigin
        state.withLock { $0.headers = headers }
    }

    /// The wall-clock time the clock stands at.
    var now: Date { wallClockOrigin.addingTimeInterval(clock.now.offset.inSeconds) }

    /// The headers of every later response (besides `ETag` and `Date`).
    func setHeaders(_ headers: HTTPHeaders) { state.withLock { $0.headers = headers } }
    /// A new representation: a new body and ETag.
    func change() { state.withLock { $0.version += 1 } }
    /// Makes every later request throw `error` (`nil`: answer again).
    func fail(with error: (any Error)?) { state.withLock { $0.failure = error } }
    /// Makes every later request answer `status` with an empty body (`nil`: answer normally).
    func answer(status: Int?) { state.withLock { $0.status = status } }
    /// Holds every later request at `gate` until it opens.
    func hold(at gate: AsyncGate?) { state.withLock { $0.gate = gate } }
    /// Moves the clock by `delay` while each request is in flight: the response delay.
    func take(_ delay: Duration) { state.withLock { $0.delay = delay } }

    var etag: String { "\"v\(state.withLock { $0.version })\"" }
    var body: String { "representation v\(state.withLock { $0.version })" }
    /// Full (`200`) responses and `304`s sent.
    var counts: (full: Int, notModified: Int) { state.withLock { ($0.full, $0.notModified) } }
    var requests: Int { counts.full + counts.notModified }

    /// The origin as a transport.
    var transport: ClosureTransport {
        ClosureTransport { request in try await self.respond(request) }
    }

    func respond(_ request: HTTPRequest) async throws -> HTTPResponse {
        let (gate, delay) = state.withLock { ($0.gate, $0.delay) }
        if let gate { await gate.wait() }
        try Task.checkCancellation()
        clock.advance(by: delay)
        return try state.withLock { state in
            if let failure = state.failure { throw failure }
            var headers = state.headers
            headers["Date"] = HTTPDate.format(now)
            if let status = state.status {
                state.full += 1
                return HTTPResponse(statusCode: status, headers: headers, url: request.url)
            }
            let etag = "\"v\(state.version)\""
            headers["ETag"] = etag
            if request.headers["If-None-Match"] == etag {
                state.notModified += 1
                return HTTPResponse(statusCode: 304, headers: headers, url: request.url)
            }
            state.full += 1
            return HTTPResponse(
                statusCode: 200, headers: headers, body: Data("representation v\(state.version)".utf8),
                url: request.url)
        }
    }
}

/// A gate tasks wait at until it opens; a waiting task that is cancelled stops waiting.
final class AsyncGate: Sendable {
    private let state = LockedValue((isOpen: false, waiters: [UInt64: CheckedContinuation<Void, Never>](), next: UInt64(0)))

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        let id = state.withLock { state -> UInt64 in
            state.next += 1
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let proceed = state.withLock { state -> Bool in
                    guard !state.isOpen, !Task.isCancelled else { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if proceed { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}

/// A clock, a wall-clock origin agreeing with it, a scripted origin and an `ETagTransport` over it.
struct CacheHarness {
    static let epoch = Date(timeIntervalSince1970: 1_700_000_000)
    let clock = TestClock()
    let origin: ScriptedOrigin
    let transport: ETagTransport
    let events = RecordingObserver()
    let counter = EventCounter()
    let url = "https://api.example.com/config"

    init(
        headers: HTTPHeaders, store: any ETagStoreProtocol = InMemoryETagStore(),
        freshness: FreshnessPolicy = FreshnessPolicy(), policy: ConditionalRequestPolicy = ConditionalRequestPolicy()
    ) {
        origin = ScriptedOrigin(clock: clock, wallClockOrigin: Self.epoch, headers: headers)
        transport = ETagTransport(
            inner: origin.transport, store: store, policy: policy, freshness: freshness,
            clock: clock, wallClockOrigin: Self.epoch)
    }

    /// The transport, observed by `events` and `counter`.
    var observed: ObservingTransport {
        ObservingTransport(inner: transport) { [events, counter] in
            events.record($0)
            counter.record($0)
        }
    }

    /// Sends a GET (with `headers`) through the transport, observed by `events` and `counter`.
    func get(_ headers: [String: String] = [:], method: String = "GET") async throws -> HTTPResponse {
        try await observed.send(makeRequest(url, method: method, headers: headers))
    }

    func advance(_ seconds: Double) { clock.advance(by: .milliseconds(Int64(seconds * 1_000))) }

    func etagEvents() -> [ETagEvent] { events.events(ETagEvent.self) }
}

/// A store shared by a fleet, as `RedisETagStore` is, but in memory.
struct SharedMemoryStore: ETagStoreProtocol {
    let inner = InMemoryETagStore()
    var isSharedStorage: Bool { true }
    func cachedResponse(for key: String) async -> ETagCacheEntry? { await inner.cachedResponse(for: key) }
    func store(_ entry: ETagCacheEntry, for key: String) async { await inner.store(entry, for: key) }
    func remove(for key: String) async { await inner.remove(for: key) }
    func removeAll() async { await inner.removeAll() }
}

/// Counts the events a stack reports, by name, and lets a test wait until enough of one kind
/// arrived: suspended on a continuation, never spinning (a spinning task would hold one of the
/// cooperative pool's two threads from every other test).
final class EventCounter: Sendable {
    private struct Waiter {
        var name: String
        var count: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private let state = LockedValue((counts: [String: Int](), waiters: [Waiter]()))

    /// Counts `observed`; pass it as an observer.
    @Sendable func record(_ observed: ObservedEvent) {
        let name = observed.event.name
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.counts[name, default: 0] += 1
            let count = state.counts[name]!
            let ready = state.waiters.filter { $0.name == name && $0.count <= count }.map(\.continuation)
            state.waiters.removeAll { $0.name == name && $0.count <= count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// How many events named `name` arrived.
    func count(_ name: String) -> Int { state.withLock { $0.counts[name] ?? 0 } }

    /// Returns once `count` events named `name` arrived.
    func wait(for name: String, count: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                guard state.counts[name] ?? 0 < count else { return true }
                state.waiters.append(Waiter(name: name, count: count, continuation: continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
