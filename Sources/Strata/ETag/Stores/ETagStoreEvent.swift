/// What an ETag store did on its own initiative, reported to its `onEvent` hook: evictions,
/// refusals and failures that it swallowed so that requests never fail because of it.
///
/// Events name entries by `keyDigest`, the hex SHA-256 of the store key, never by the key: a key
/// holds the URL (whose query may carry a token) and the values of the fields a `Vary` names,
/// and events go to logs. For ``FileETagStore`` the entry's file name is `keyDigest` + `.etag`.
public enum ETagStoreEvent: Sendable, Hashable {
    /// An entry was evicted to respect the store's bounds (least recently used first).
    case evicted(keyDigest: String, bytes: Int)
    /// An entry was not stored because it alone exceeds the store's size bound.
    case rejectedTooLarge(keyDigest: String, bytes: Int, limit: Int)
    /// An entry file could not be used (truncated, corrupt, another format version, too large)
    /// and was removed; the lookup was a miss.
    case removedUnreadableFile(name: String, reason: String)
    /// A file operation failed; the store carried on as if the entry were absent.
    case fileOperationFailed(operation: String, path: String, reason: String)
}

extension ETagStoreEvent {
    /// The `keyDigest` events report for `key`: its SHA-256 in lower-case hex.
    package static func keyDigest(of key: String) -> String {
        SHA256.hexDigest(Array(key.utf8))
    }
}
