/// An ``ETagStoreProtocol`` store in memory: fast, bounded, and gone when the process ends.
///
/// Use it for short-lived processes or when responses must never touch the disk. It holds at
/// most `maxEntries` entries and `maxTotalBytes` bytes (bodies plus header text), evicting the least recently used entry first; an
/// entry larger than `maxTotalBytes` alone is not stored. Reading an entry counts as using it.
///
/// Safe to use from any number of tasks. Its state is behind a lock held for a dictionary
/// lookup, not isolated to the actor: every call runs in the caller's task, so an
/// ``ETagTransport`` reading and writing it on each request never waits for the actor's
/// executor or hops to it (at 16 concurrent requests those hops cost more than the lookups).
public actor InMemoryETagStore: ETagStoreProtocol {
    private struct State {
        /// Each entry with its ``ETagCacheEntry/approximateByteCount``, counted once when stored.
        /// Keyed with their hashes, so that ``ETagTransport``, which has a request's key hashed
        /// already, looks it up and reorders it without hashing the text again.
        var entries: [StoreKey: (entry: ETagCacheEntry, bytes: Int)] = [:]
        var order = LeastRecentlyUsedOrder<StoreKey>()
        var totalBytes = 0
        /// The most recently used entry and its key, beside the table: a key asked for again
        /// (every request's lookup, then its check after the response) is compared with this
        /// one, which costs less than a lookup. When set, it is `entries[newest.key]` and
        /// `order`'s newest key.
        var newest: (key: StoreKey, entry: ETagCacheEntry)?

        mutating func remove(_ key: StoreKey) {
            guard let removed = entries.removeValue(forKey: key) else { return }
            totalBytes -= removed.bytes
            order.remove(key)
            if newest?.key == key { newest = nil }
        }
    }

    private let state = LockedValue(State())
    private let maxEntries: Int
    private let maxTotalBytes: Int

    /// Creates an empty store.
    ///
    /// - Parameters:
    ///   - maxEntries: The most entries kept; at least 1 is used.
    ///   - maxTotalBytes: The most bytes kept across entries. Default: 32 MiB.
    ///
    /// Evictions and refusals are reported as ``ETagStoreEvent``s through ``TransportEvents``.
    public init(maxEntries: Int = 1_000, maxTotalBytes: Int = 32 << 20) {
        self.maxEntries = max(1, maxEntries)
        self.maxTotalBytes = max(0, maxTotalBytes)
    }

    /// Returns the entry under `key` and marks it as the most recently used.
    nonisolated public func cachedResponse(for key: String) async -> ETagCacheEntry? {
        entry(for: StoreKey(key))
    }

    /// ``cachedResponse(for:)``, for a caller that knows the store's type and has the key
    /// hashed: no async call, no hashing.
    nonisolated func entry(for key: StoreKey) -> ETagCacheEntry? {
        state.withLock { state in
            if let newest = state.newest, newest.key == key { return newest.entry }
            guard let stored = state.entries[key] else { return nil }
            state.order.touch(key)
            state.newest = (key, stored.entry)
            return stored.entry
        }
    }

    /// Whether an entry is stored under `key`; does not count as a use.
    nonisolated public func containsEntry(for key: String) async -> Bool {
        holdsEntry(for: StoreKey(key))
    }

    /// ``containsEntry(for:)``, for a caller that knows the store's type and has the key
    /// hashed: no async call, no hashing.
    nonisolated func holdsEntry(for key: StoreKey) -> Bool {
        state.withLock { $0.newest?.key == key || $0.entries[key] != nil }
    }

    /// Stores `entry` under `key`, then evicts least recently used entries until both bounds hold.
    nonisolated public func store(_ entry: ETagCacheEntry, for key: String) async {
        store(entry, for: StoreKey(key))
    }

    /// ``store(_:for:)``, for a caller that knows the store's type and has the key
    /// hashed: no async call, no hashing.
    nonisolated func store(_ entry: ETagCacheEntry, for key: StoreKey) {
        let bytes = entry.approximateByteCount
        guard bytes <= maxTotalBytes else {
            state.withLock { $0.remove(key) }
            TransportEvents.emit(
                ETagStoreEvent.rejectedTooLarge(
                    keyDigest: ETagStoreEvent.keyDigest(of: key.text), bytes: bytes,
                    limit: maxTotalBytes))
            return
        }
        let evicted = state.withLock { state -> [(key: StoreKey, bytes: Int)] in
            // One lookup whether the key is new or replaced (the common case: a stored entry
            // written again after each 200 or changed 304).
            if let replaced = state.entries.updateValue((entry, bytes), forKey: key) { state.totalBytes -= replaced.bytes }
            state.totalBytes += bytes
            state.order.touch(key)
            state.newest = (key, entry)
            var evicted: [(key: StoreKey, bytes: Int)] = []
            while state.entries.count > maxEntries || state.totalBytes > maxTotalBytes, let victim = state.order.oldest {
                evicted.append((victim, state.entries[victim]?.bytes ?? 0))
                state.remove(victim)
            }
            return evicted
        }
        // Reported outside the lock, in the caller's task (observers are task-local).
        for victim in evicted {
            TransportEvents.emit(ETagStoreEvent.evicted(keyDigest: ETagStoreEvent.keyDigest(of: victim.key.text), bytes: victim.bytes))
        }
    }

    /// Removes the entry under `key`, if any.
    nonisolated public func remove(for key: String) async {
        remove(StoreKey(key))
    }

    /// ``remove(for:)``, for a caller that knows the store's type and has the key hashed: no
    /// async call, no hashing.
    nonisolated func remove(_ key: StoreKey) {
        state.withLock { $0.remove(key) }
    }

    /// Removes every entry.
    nonisolated public func removeAll() async {
        state.withLock { $0 = State() }
    }

    /// The number of entries held.
    nonisolated package var count: Int {
        get async { state.withLock { $0.entries.count } }
    }

    /// The bytes held, as counted against `maxTotalBytes`.
    nonisolated package var byteCount: Int {
        get async { state.withLock { $0.totalBytes } }
    }
}
