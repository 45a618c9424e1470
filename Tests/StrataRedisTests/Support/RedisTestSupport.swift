#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import RedisTestServer
import Strata
@testable import StrataRedis
import StrataTesting
import Testing
import TestServer
import TestSupport

extension Trait where Self == ConditionTrait {
    /// Runs the test only when `redis-server` is installed: these tests start a real one.
    /// `.ci/run` installs it, so CI never skips them.
    static var needsRedisServer: Self {
        .enabled(
            if: RedisServerProcess.isInstalled,
            "redis-server is not installed: apt-get install redis-server (CI installs it)")
    }
}

/// Collects a store's events, for assertions.
final class StoreEvents: Sendable {
    private let events = LockedValue<[RedisETagStoreEvent]>([])
    var all: [RedisETagStoreEvent] { events.withLock { $0 } }
    /// Records the store's events among those observed.
    var observer: @Sendable (ObservedEvent) -> Void {
        { observed in
            guard let event = observed.event as? RedisETagStoreEvent else { return }
            self.events.withLock { $0.append(event) }
        }
    }
    func removeAll() { events.withLock { $0.removeAll() } }

    var failures: [String] {
        all.compactMap { if case .failed(_, let reason) = $0 { reason } else { nil } }
    }
}

/// A store on `url` with test-friendly timeouts and a hand-moved clock for its circuit breaker,
/// every call observed by `events` (as the observers of the request calling a store would be).
func makeStore(
    _ url: URL, namespace: String = "test:etag", timeToLive: Duration? = nil,
    maxEntryBytes: Int = 8 << 20, commandTimeout: Duration = .seconds(5),
    time: TestClock = TestClock(), events: StoreEvents? = nil,
    entryAuthenticationKeys: [RedisEntryAuthenticationKey] = []
) throws -> ObservedStore {
    ObservedStore(
        inner: try RedisETagStore(
            url: url, namespace: namespace, timeToLive: timeToLive, maxEntryBytes: maxEntryBytes, maxConnections: 4,
            connectTimeout: TestTimeScale.scaled(.seconds(2)), commandTimeout: TestTimeScale.scaled(commandTimeout),
            retryDelays: (.milliseconds(100), .seconds(5)), clock: time, entryAuthenticationKeys: entryAuthenticationKeys),
        events: events)
}

/// A ``RedisETagStore`` whose every call runs under an observer, as a store's calls do inside
/// an observed stack, so a test sees the events the store reports.
struct ObservedStore: ETagStoreProtocol {
    let inner: RedisETagStore
    let events: StoreEvents?

    private func observed<T: Sendable>(_ body: () async -> T) async -> T {
        guard let events else { return await body() }
        return await TransportEvents.observing(events.observer) { _ in await body() }
    }

    func cachedResponse(for key: String) async -> ETagCacheEntry? { await observed { await inner.cachedResponse(for: key) } }
    func store(_ entry: ETagCacheEntry, for key: String) async { await observed { await inner.store(entry, for: key) } }
    func remove(for key: String) async { await observed { await inner.remove(for: key) } }
    func removeAll() async { await observed { await inner.removeAll() } }
    func containsEntry(for key: String) async -> Bool { await observed { await inner.containsEntry(for: key) } }
    var isSharedStorage: Bool { inner.isSharedStorage }
}

/// An entry with a body and an ETag.
func makeEntry(_ body: String, etag: String = "\"v1\"") -> ETagCacheEntry {
    ETagCacheEntry(
        response: HTTPResponse(
            statusCode: 200, headers: ["ETag": etag], body: Data(body.utf8),
            url: URL(string: "https://api.example/items")))
}

/// A client for what tests do to Redis behind the store's back: plant values, read TTLs, pause.
struct RedisAdmin {
    let client: RedisClient

    init(_ url: URL) throws {
        let settings = RedisConnection.Settings(
            endpoint: try RedisEndpoint(url: url), limits: RESPLimits(),
            connectTimeout: TestTimeScale.scaled(.seconds(2)),
            commandTimeout: TestTimeScale.scaled(.seconds(5)))
        client = RedisClient(settings: settings, maxConnections: 1)
    }

    /// Runs one command and returns its reply.
    @discardableResult
    func run(_ name: String, _ arguments: RedisArgument...) async throws -> RESPValue {
        try await client.send([RedisCommand(name, arguments: arguments)])[0]
    }

    /// Every key in the current database.
    func keys() async throws -> [String] {
        guard case .array(let keys?) = try await run("KEYS", "*") else { return [] }
        return keys.compactMap { if case .bulkString(let key?) = $0 { String(decoding: key, as: UTF8.self) } else { nil } }
    }

    /// The raw value under `key`.
    func value(_ key: String) async throws -> [UInt8]? {
        guard case .bulkString(let value) = try await run("GET", RedisArgument(key)) else { return nil }
        return value
    }

    /// A key's remaining time to live in milliseconds (-1: none, -2: no key).
    func pttl(_ key: String) async throws -> Int64 {
        guard case .integer(let milliseconds) = try await run("PTTL", RedisArgument(key)) else { return -3 }
        return milliseconds
    }
}

/// One upstream resource on a loopback server: answers `GET /resource` with its current version
/// (an ETag, a `Cache-Control` when given, and a body of `bodyBytes` bytes), or `304` when
/// `If-None-Match` names it, and counts both.
final class UpstreamResource: Sendable {
    let server: LoopbackHTTPServer
    private let state = LockedValue((version: 1, fullResponses: 0, notModified: 0, bodyBytesSent: 0))

    init(bodyBytes: Int = 100_000, cacheControl: String? = nil) throws {
        server = try LoopbackHTTPServer()
        let extra = cacheControl.map { [(name: "Cache-Control", value: $0)] } ?? []
        server.route("/resource", method: "GET") { [state] request in
            state.withLock { state in
                let etag = "\"v\(state.version)\""
                if request.header("If-None-Match") == etag {
                    state.notModified += 1
                    return .init(status: 304, headers: [("ETag", etag)] + extra)
                }
                let body = Data(repeating: UInt8(ascii: "a") + UInt8(state.version % 26), count: bodyBytes)
                state.fullResponses += 1
                state.bodyBytesSent += body.count
                return .init(status: 200, headers: [("ETag", etag), ("Content-Type", "text/plain")] + extra, body: body)
            }
        }
    }

    var url: URL { server.url("/resource") }
    func change() { state.withLock { $0.version += 1 } }
    /// `200`s sent, `304`s sent, body bytes sent.
    var counts: (full: Int, notModified: Int, bodyBytes: Int) {
        state.withLock { ($0.fullResponses, $0.notModified, $0.bodyBytesSent) }
    }
    func resetCounts() {
        state.withLock {
            $0.fullResponses = 0; $0.notModified = 0; $0.bodyBytesSent = 0
        }
    }
}
