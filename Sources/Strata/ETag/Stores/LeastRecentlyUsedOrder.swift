/// The use order of a set of keys, oldest first, with O(1) touch, removal and oldest lookup:
/// a doubly linked list threaded through a dictionary.
struct LeastRecentlyUsedOrder<Key: Hashable & Sendable>: Sendable {
    private struct Links: Sendable {
        var older: Key?
        var newer: Key?
    }

    private var links: [Key: Links] = [:]
    private(set) var oldest: Key?
    private var newest: Key?

    /// The number of keys.
    var count: Int { links.count }

    /// Makes `key` the most recently used, adding it if new.
    mutating func touch(_ key: Key) {
        // Touching the newest key again (a store reading the entry it just wrote) changes
        // nothing, and a comparison is cheaper than hashing the key.
        if newest == key { return }
        if links[key] != nil {
            guard newest != key else { return }
            remove(key)
        }
        links[key] = Links(older: newest, newer: nil)
        if let newest { links[newest]?.newer = key }
        newest = key
        if oldest == nil { oldest = key }
    }

    /// Forgets `key`.
    mutating func remove(_ key: Key) {
        guard let removed = links.removeValue(forKey: key) else { return }
        if let older = removed.older { links[older]?.newer = removed.newer } else { oldest = removed.newer }
        if let newer = removed.newer { links[newer]?.older = removed.older } else { newest = removed.older }
    }

    /// Forgets every key.
    mutating func removeAll() {
        links = [:]
        oldest = nil
        newest = nil
    }

    /// The keys from least to most recently used.
    var keysOldestFirst: [Key] {
        var keys: [Key] = []
        var cursor = oldest
        while let key = cursor {
            keys.append(key)
            cursor = links[key]?.newer
        }
        return keys
    }
}
