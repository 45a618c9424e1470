import Foundation

/// A ``RedisETagStore`` that cannot be created: its configuration is wrong. (Once created, the
/// store never throws: an unreachable Redis is reported through ``RedisETagStoreEvent``.)
public enum RedisETagStoreError: Error, Hashable, CustomStringConvertible {
    /// The URL is not `redis://[user:password@]host[:port][/db]`. The URL shown has its user
    /// information, query and fragment replaced by `<redacted>`.
    case invalidURL(String, reason: String)
    /// The namespace cannot prefix Redis keys safely.
    case invalidNamespace(String, reason: String)
    /// A size, count or duration parameter is out of range; `parameter` is its name.
    case invalidParameter(_ parameter: String, reason: String)

    /// What is wrong and how to fix it.
    public var description: String {
        switch self {
        case .invalidURL(let url, let reason):
            "RedisETagStore cannot use the URL \(url): \(reason)"
        case .invalidNamespace(let namespace, let reason):
            "RedisETagStore cannot use the namespace \"\(namespace)\": \(reason)"
        case .invalidParameter(let parameter, let reason):
            "RedisETagStore cannot use \(parameter): \(reason)"
        }
    }
}

extension RedisETagStoreError: LocalizedError {
    /// The same text as `description`, so `localizedDescription` says what happened and what
    /// to do instead of "The operation could not be completed".
    public var errorDescription: String? { description }
}
