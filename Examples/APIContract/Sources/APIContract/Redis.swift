#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataRedis

// StrataRedis: the fleet-shared ETag store, its event and its error, as the README spells them.

func redisContract() throws {
    let url = URL(string: "redis://etag:s3cret@cache.internal:6379/2")!
    let store = try RedisETagStore(url: url, namespace: "orders-service:etag", timeToLive: .seconds(86_400),
                                   maxEntryBytes: 8 << 20, maxConnections: 4, connectTimeout: .seconds(1),
                                   commandTimeout: .milliseconds(500))
    _ = ObservingTransport(inner: ETagTransport(inner: URLSessionTransport(), store: store)) { observed in
        guard let event = observed.event as? RedisETagStoreEvent else { return }
        switch event {
        case .failed(let operation, let reason): print(operation.rawValue, reason)
        case .skipped(_, let retryAfter): print(retryAfter)
        case .recovered(let missed): print(missed)
        case .unreadableEntry(let keyDigest, let reason): print(keyDigest, reason)
        case .rejectedTooLarge(let keyDigest, let bytes, let limit): print(keyDigest, bytes, limit)
        case .untrustedNode(let operation, let node, let reason): print(operation.rawValue, node, reason)
        case .unauthenticatedEntry(let keyDigest, let failure):
            switch failure {
            case .unsigned, .tagMismatch: print(keyDigest, failure)
            case .unknownKey(let id): print(keyDigest, id)
            }
        }
    }
    _ = try RedisETagStore(url: URL(string: "redis://127.0.0.1")!)
    let entryKey = try RedisEntryAuthenticationKey(base64Encoded: "c2VjcmV0LWVudHJ5LWtleS0wMTIzNDU2Nzg5YWJjZGVm")
    let previousKey = try RedisEntryAuthenticationKey(Array(repeating: UInt8(7), count: RedisEntryAuthenticationKey.minimumByteCount))
    _ = try RedisETagStore(url: url, entryAuthenticationKeys: [entryKey, previousKey])
    _ = try RedisETagStore(cluster: [URL(string: "redis://etag:s3cret@cache.internal:6379")!], entryAuthenticationKeys: [entryKey])
    print(entryKey.id, entryKey)
    _ = RedisETagStore.defaultNamespace
    let operations: [RedisETagStoreEvent.Operation] = [.lookup, .store, .remove, .removeAll, .contains]
    _ = operations
    do {
        _ = try RedisETagStore(url: URL(string: "rediss://cache.internal")!)
    } catch {
        switch error {
        case .invalidURL(let shown, let reason), .invalidNamespace(let shown, let reason),
             .invalidParameter(let shown, let reason): print(shown, reason)
        }
    }
}
