#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting

/// A request for `url` with a method and header fields.
func makeRequest(_ url: String, method: String = "GET", headers: [String: String] = [:]) -> HTTPRequest {
    HTTPRequest(
        method: HTTPMethod(rawValue: method), url: URL(string: url)!,
        headers: HTTPHeaders(headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
}

/// A 200 response with a body and header fields.
func makeResponse(_ body: String, status: Int = 200, headers: HTTPHeaders = [:]) -> HTTPResponse {
    HTTPResponse(statusCode: status, headers: headers, body: Data(body.utf8))
}

/// Runs `body` with `recorder` observing the events reported inside it (a store's evictions and
/// failures, which happen outside any transport in these tests).
func observingEvents<T>(_ recorder: RecordingObserver, _ body: () async throws -> T) async rethrows -> T {
    try await TransportEvents.observing(recorder.record) { _ in try await body() }
}

/// A fresh directory under the system temporary directory, removed by `cleanUp()`.
struct TemporaryDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-etag-\(UUID().uuidString)")
    }
    /// A path inside it that does not exist yet: stores create their own directory.
    var storeURL: URL { url.appendingPathComponent("store") }
    func cleanUp() { try? FileManager.default.removeItem(at: url) }
}

/// A resource on a pretend origin: answers GET with its representation and a 304 when the
/// request's If-None-Match names its current ETag. Each `(authorization, acceptLanguage)`
/// gets its own body, so tests can see whose body they were served.
final class VersionedResource: Sendable {
    private let version = LockedValue(1)
    let extraHeaders: HTTPHeaders

    init(extraHeaders: HTTPHeaders = [:]) { self.extraHeaders = extraHeaders }

    func change() { version.withLock { $0 += 1 } }

    func etag(for request: HTTPRequest) -> String {
        let who = request.headers["Authorization"] ?? "anonymous"
        let language = request.headers["Accept-Language"] ?? "any"
        return "\"v\(version.withLock { $0 })-\(who.utf8.count)-\(language)\""
    }

    func body(for request: HTTPRequest) -> String {
        "body v\(version.withLock { $0 }) for \(request.headers["Authorization"] ?? "anonymous")"
            + " in \(request.headers["Accept-Language"] ?? "any")"
    }

    func respond(_ request: HTTPRequest) -> HTTPResponse {
        var headers = extraHeaders
        headers["ETag"] = etag(for: request)
        if request.headers["If-None-Match"] == etag(for: request) {
            return HTTPResponse(statusCode: 304, headers: headers)
        }
        let body = body(for: request)
        headers["Content-Length"] = String(body.utf8.count)
        return HTTPResponse(statusCode: 200, headers: headers, body: Data(body.utf8))
    }
}

/// A thread-safe counter to share with server handlers.
final class Counter: Sendable {
    private let count = LockedValue(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}

/// An in-memory store that counts writes, to see when the transport writes back.
actor CountingStore: ETagStoreProtocol {
    private let inner = InMemoryETagStore()
    private(set) var writes = 0

    func cachedResponse(for key: String) async -> ETagCacheEntry? { await inner.cachedResponse(for: key) }
    func store(_ entry: ETagCacheEntry, for key: String) async {
        writes += 1
        await inner.store(entry, for: key)
    }
    func remove(for key: String) async { await inner.remove(for: key) }
    func removeAll() async { await inner.removeAll() }
}

extension ExchangeTimes {
    /// An exchange at a fixed time (2023-11-14 22:13:20 UTC), for entries built by hand.
    static let testExchange = ExchangeTimes(
        requestTime: Date(timeIntervalSince1970: 1_700_000_000),
        responseTime: Date(timeIntervalSince1970: 1_700_000_000))
}
