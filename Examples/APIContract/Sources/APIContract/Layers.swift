#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata

// Decorator names from api.md, with the exact parameter labels and defaults. The Double
// spelling of RetryPolicy is api.md's and compiles, deprecated; the Duration one is current.

func layersContract() {
    let retry = RetryTransport(inner: URLSessionTransport(), policy: RetryPolicy())
    _ = RetryTransport(inner: retry)
    let jitters: [RetryPolicy.Jitter] = [.none, .full, .equal, .decorrelated]
    _ = jitters
    _ = RetryPolicy(maxRetries: 3, baseDelay: 0.5, maxDelay: 30, jitter: .full,
                    retryableStatusCodes: [408, 429, 500, 502, 503, 504],
                    retryableMethods: [.get, .head, .options, .trace, .put, .delete],
                    maxRetryAfter: 60)
    _ = RetryPolicy(maxRetries: 3, baseDelay: .milliseconds(500), maxDelay: .seconds(30), jitter: .full,
                    maxRetryAfter: .seconds(60))
    _ = RetryTransport(inner: retry, policy: RetryPolicy(), clock: ContinuousClock(), random: { 0.5 })
    _ = TransportStack(.retry(), .etag(), terminal: URLSessionTransport(requestTimeout: .seconds(30)))
}

actor ContractStore: ETagStoreProtocol {
    func cachedResponse(for key: String) async -> ETagCacheEntry? { nil }
    func store(_ entry: ETagCacheEntry, for key: String) async {}
    func remove(for key: String) async {}
    func removeAll() async {}
}

func etagContract() throws {
    _ = ETagTransport(inner: URLSessionTransport())
    _ = ETagTransport(inner: URLSessionTransport(), store: InMemoryETagStore(maxEntries: 1_000))
    _ = ETagTransport(inner: URLSessionTransport(), store: ContractStore())
    let store: any ETagStoreProtocol = try FileETagStore(directory: URL(fileURLWithPath: "/tmp/strata-contract"))
    _ = store
    _ = InMemoryETagStore()
}
