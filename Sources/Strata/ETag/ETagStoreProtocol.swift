/// A place ``ETagTransport`` keeps responses between requests, by key.
///
/// Keys are opaque strings built by ``ConditionalRequestPolicy``: the URL, a SHA-256 digest of
/// the identity fields, and the values of the fields a `Vary` names, where an identity field
/// (``ConditionalRequestPolicy/identityHeaderNames``) again appears only as a digest. They hold
/// no header credential, but their URL's query may carry a token, so stores report and persist
/// a digest of a key, never the key.
/// A store may forget any entry at any time (eviction, a corrupt file): a missing entry only
/// costs a full download. Its methods cannot fail, so a store that hits trouble (disk full, an
/// unreadable file) answers as if the entry were absent and reports the trouble as an
/// ``ETagStoreEvent`` (or an event type of its own) through ``TransportEvents``; the request
/// always goes on. Implementations must be safe to call from many tasks.
///
/// Strata provides ``InMemoryETagStore`` and ``FileETagStore``.
public protocol ETagStoreProtocol: Sendable {
    /// Returns the entry stored under `key`, or `nil` when there is none or it cannot be read.
    func cachedResponse(for key: String) async -> ETagCacheEntry?
    /// Stores `entry` under `key`, replacing any earlier entry. A store may decline (an entry
    /// larger than its bound) or fail silently; a later lookup then returns `nil`.
    func store(_ entry: ETagCacheEntry, for key: String) async
    /// Removes the entry stored under `key`, if any.
    func remove(for key: String) async
    /// Removes every entry.
    func removeAll() async
    /// Whether an entry is stored under `key`, ideally without reading it. ``ETagTransport``
    /// asks after a 304 whose headers changed nothing, to put back an entry that was evicted
    /// while the request was in flight. The default implementation reads the entry.
    func containsEntry(for key: String) async -> Bool
    /// Whether clients that do not trust each other's credentials may share the store, as a
    /// fleet shares a Redis. RFC 9111 §3.5 then applies: a response to a request with
    /// `Authorization` is served without asking the origin only when it says `public`,
    /// `s-maxage` or `must-revalidate`; otherwise it serves only as a validator. Default: `false`
    /// (a store in one process's memory or one user's directory is a private cache).
    var isSharedStorage: Bool { get }
}

extension ETagStoreProtocol {
    /// Whether ``cachedResponse(for:)`` finds an entry under `key`.
    public func containsEntry(for key: String) async -> Bool {
        await cachedResponse(for: key) != nil
    }

    /// `false`: a private cache.
    public var isSharedStorage: Bool { false }
}
