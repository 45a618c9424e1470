/// An ``ETagStoreProtocol`` store in memory: fast, bounded, and gone when the process ends.
///
/// Use it for short-lived processes or when responses must never touch the disk. It holds at
/// most `maxEntries` entries and `maxTotalBytes` bytes (bodies plus headers, see
/// ``ETagCacheEntry/approximateByteCount``), evicting the least recently used entry first; an
/// entry larger than `maxTotalBytes` alone is not stored. Reading an entry counts as using it.
public actor InMemoryETagStore: ETagStoreProtocol {
    /// Each entry with its ``ETagCacheEntry/approximateByteCount``, counted once when stored.
    private var entries: [String: (entry: ETagCacheEntry, bytes: Int)] = [:]
    private var order = LeastRecentlyUsedOrder<String>()
    private var totalBytes = 0
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
    public func cachedResponse(for key: String) -> ETagCacheEntry? {
        guard let stored = entries[key] else { return nil }
        order.touch(key)
        return stored.entry
    }

    /// Whether an entry is stored under `key`; does not count as a use.
    public func containsEntry(for key: String) -> Bool { entries[key] != nil }

    /// Stores `entry` under `key`, then evicts least recently used entries until both bounds hold.
    public func store(_ entry: ETagCacheEntry, for key: String) {
        let bytes = entry.approximateByteCount
        guard bytes <= maxTotalBytes else {
            remove(for: key)
            TransportEvents.emit(ETagStoreEvent.rejectedTooLarge(keyDigest: ETagStoreEvent.keyDigest(of: key), bytes: bytes,
                                       limit: maxTotalBytes))
            return
        }
        // One lookup whether the key is new or replaced (the common case: a stored entry written
        // again after each 200 or changed 304).
        if let replaced = entries.updateValue((entry, bytes), forKey: key) { totalBytes -= replaced.bytes }
        totalBytes += bytes
        order.touch(key)
        while entries.count > maxEntries || totalBytes > maxTotalBytes, let victim = order.oldest {
            let evictedBytes = entries[victim]?.bytes ?? 0
            remove(for: victim)
            TransportEvents.emit(ETagStoreEvent.evicted(keyDigest: ETagStoreEvent.keyDigest(of: victim), bytes: evictedBytes))
        }
    }

    /// Removes the entry under `key`, if any.
    public func remove(for key: String) {
        guard let removed = entries.removeValue(forKey: key) else { return }
        totalBytes -= removed.bytes
        order.remove(key)
    }

    /// Removes every entry.
    public func removeAll() {
        entries = [:]
        order.removeAll()
        totalBytes = 0
    }

    /// The number of entries held.
    public var count: Int { entries.count }

    /// The bytes held, as counted against `maxTotalBytes`.
    public var byteCount: Int { totalBytes }
}
