/// What an ETag store did on its own initiative, reported through ``TransportEvents`` to the
/// observers of the request that caused it: evictions, refusals and failures that it swallowed
/// so that requests never fail because of it. (Work outside any request, such as a
/// `removeAll()` you call yourself, reports to no one.)
///
/// Events name entries by `keyDigest`, the hex SHA-256 of the store key, never by the key: a key
/// holds the URL (whose query may carry a token) and the values of the fields a `Vary` names,
/// and events go to logs. For ``FileETagStore`` the entry's file name is `keyDigest` + `.etag`.
public enum ETagStoreEvent: TransportEvent, Hashable {
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

extension ETagStoreEvent {
    /// `etag.store.` plus what happened: `evicted`, `rejected-too-large`, `removed-unreadable-file`,
    /// `file-operation-failed`.
    public var name: String {
        switch self {
        case .evicted: "etag.store.evicted"
        case .rejectedTooLarge: "etag.store.rejected-too-large"
        case .removedUnreadableFile: "etag.store.removed-unreadable-file"
        case .fileOperationFailed: "etag.store.file-operation-failed"
        }
    }

    /// `warning` for a failed file operation or an unreadable file, `debug` otherwise.
    public var logLevel: LogLevel {
        switch self {
        case .evicted, .rejectedTooLarge: .debug
        case .removedUnreadableFile, .fileOperationFailed: .warning
        }
    }

    /// For example `evicted entry 3f2a…: 2048 bytes`.
    public func message(redactedBy redaction: Redaction) -> String {
        switch self {
        case .evicted(let digest, let bytes):
            "evicted entry \(digest): \(bytes) bytes"
        case .rejectedTooLarge(let digest, let bytes, let limit):
            "did not store entry \(digest): \(bytes) bytes exceed the store's \(limit)-byte limit"
        case .removedUnreadableFile(let name, let reason):
            "removed unreadable entry file \(name): \(redaction.scrub(reason))"
        case .fileOperationFailed(let operation, let path, let reason):
            "\(operation) failed for \(path): \(redaction.scrub(reason)); carried on without the entry"
        }
    }
}
