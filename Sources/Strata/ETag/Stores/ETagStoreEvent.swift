/// What an ETag store did on its own initiative, reported to its `onEvent` hook: evictions,
/// refusals and failures that it swallowed so that requests never fail because of it.
public enum ETagStoreEvent: Sendable, Hashable {
    /// An entry was evicted to respect the store's bounds (least recently used first). For
    /// ``FileETagStore`` the key is the entry's file name: it keeps no keys in memory.
    case evicted(key: String, bytes: Int)
    /// An entry was not stored because it alone exceeds the store's size bound.
    case rejectedTooLarge(key: String, bytes: Int, limit: Int)
    /// An entry file could not be used (truncated, corrupt, another format version, too large)
    /// and was removed; the lookup was a miss.
    case removedUnreadableFile(name: String, reason: String)
    /// A file operation failed; the store carried on as if the entry were absent.
    case fileOperationFailed(operation: String, path: String, reason: String)
}
