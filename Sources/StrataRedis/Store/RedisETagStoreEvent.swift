import Strata

/// What a ``RedisETagStore`` did on its own initiative, reported through `TransportEvents` to
/// the observers of the request that caused it (`LoggingTransport`, `ObservingTransport`): the
/// trouble it absorbed so that no request fails because of Redis.
///
/// Entries are named by `keyDigest`, the hex SHA-256 of the store key, which is also the last
/// part of the entry's Redis key (`<namespace>:<keyDigest>`), never by the key itself (it holds
/// a URL). Reasons never contain the Redis password.
public enum RedisETagStoreEvent: TransportEvent, Hashable {
    /// The store operation an event concerns.
    public enum Operation: String, Sendable, Hashable {
        /// ``RedisETagStore/cachedResponse(for:)``: a failure makes it a miss.
        case lookup
        /// ``RedisETagStore/store(_:for:)``: a failure drops the write.
        case store
        /// ``RedisETagStore/remove(for:)``.
        case remove
        /// ``RedisETagStore/removeAll()``.
        case removeAll = "remove-all"
        /// ``RedisETagStore/containsEntry(for:)``: a failure answers "absent".
        case contains
    }

    /// Redis was asked and failed: down, unreachable, slow beyond the command timeout, refusing
    /// the password, or answering with an error (such as `OOM` under `maxmemory` with a
    /// `noeviction` policy). The lookup was a miss, the write was dropped; the request went on.
    case failed(Operation, reason: String)
    /// Redis was not asked because it failed recently; the store asks again after
    /// `retryAfter`. The lookup was a miss, the write was dropped.
    case skipped(Operation, retryAfter: Duration)
    /// Redis answered again after failing; `missedOperations` lookups and writes went without
    /// it meanwhile.
    case recovered(missedOperations: Int)
    /// A stored value is not a valid entry for its key (torn, planted, another format version,
    /// a value copied from another key): the lookup was a miss, and the next download that can
    /// be stored overwrites it.
    case unreadableEntry(keyDigest: String, reason: String)
    /// An entry was not stored because its encoded size exceeds `maxEntryBytes`; any older
    /// entry under its key was removed.
    case rejectedTooLarge(keyDigest: String, bytes: Int, limit: Int)
    /// The operation was to go to cluster node `node` (`host:port`), named by a redirect
    /// (`MOVED`, `ASK`) or the slot map, which the store does not trust: no topology read from a
    /// seed names it, even after a refresh, or it is outside `allowedHosts`. Nothing was sent
    /// there, `AUTH` included: the lookup was a miss, the write was dropped. `reason` says which
    /// rule refused it.
    case untrustedNode(Operation, node: String, reason: String)

    /// A stored value is not signed by one of the store's ``RedisEntryAuthenticationKey``s for
    /// its Redis key (see `failure`): the lookup was a miss and the value was not served. An
    /// unsigned or altered value was also deleted; one signed with a key the store does not hold
    /// was left for the next download to overwrite (``AuthenticationFailure/unknownKey(id:)``).
    case unauthenticatedEntry(keyDigest: String, failure: AuthenticationFailure)

    /// `redis-etag-store.` plus what happened: `failed`, `skipped`, `recovered`,
    /// `unreadable-entry`, `rejected-too-large`, `untrusted-node`, `unauthenticated-entry`.
    public var name: String {
        switch self {
        case .failed: "redis-etag-store.failed"
        case .skipped: "redis-etag-store.skipped"
        case .recovered: "redis-etag-store.recovered"
        case .unreadableEntry: "redis-etag-store.unreadable-entry"
        case .rejectedTooLarge: "redis-etag-store.rejected-too-large"
        case .untrustedNode: "redis-etag-store.untrusted-node"
        case .unauthenticatedEntry: "redis-etag-store.unauthenticated-entry"
        }
    }

    /// `warning` when Redis failed, held an unreadable or unauthenticated entry, or redirected to
    /// an untrusted node; `notice` when it recovered; `debug` for a skipped operation or a refused
    /// entry.
    public var logLevel: LogLevel {
        switch self {
        case .failed, .unreadableEntry, .untrustedNode, .unauthenticatedEntry: .warning
        case .recovered: .notice
        case .skipped, .rejectedTooLarge: .debug
        }
    }

    /// One line for a log, such as `redis-etag-store lookup failed, answered without Redis: …`.
    public func message(redactedBy redaction: Redaction) -> String {
        switch self {
        case .failed(let operation, let reason):
            "redis-etag-store \(operation.rawValue) failed, answered without Redis: \(redaction.scrub(reason))"
        case .skipped(let operation, let retryAfter):
            "redis-etag-store \(operation.rawValue) skipped: Redis failed recently, asked again in \(retryAfter.readable)"
        case .recovered(let missed):
            "redis-etag-store recovered: Redis answers again after \(missed) operations without it"
        case .unreadableEntry(let keyDigest, let reason):
            "redis-etag-store entry \(keyDigest) unreadable, treated as a miss: \(redaction.scrub(reason))"
        case .rejectedTooLarge(let keyDigest, let bytes, let limit):
            "redis-etag-store entry \(keyDigest) not stored: \(bytes) bytes exceeds maxEntryBytes \(limit)"
        case .untrustedNode(let operation, let node, let reason):
            "redis-etag-store \(operation.rawValue) not sent to untrusted cluster node \(redaction.scrub(node)), "
                + "answered without Redis: \(redaction.scrub(reason))"
        case .unauthenticatedEntry(let keyDigest, let failure):
            "redis-etag-store entry \(keyDigest) not authenticated, treated as a miss: \(failure)"
        }
    }
}
