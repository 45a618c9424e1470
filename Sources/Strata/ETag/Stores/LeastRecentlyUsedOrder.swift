/// The use order of a set of keys, oldest first, with O(1) touch, removal and oldest lookup:
/// a doubly linked list of slots in an array, linked by index, with a dictionary from each key
/// to its slot.
///
/// Touching a key hashes it once, to find its slot; relinking goes by index. (A list linked by
/// keys hashed a key at each of up to six steps, and store keys are a URL and a 64-digit
/// digest: at 16 concurrent requests, where the key touched is rarely the newest, that hashing
/// was most of a cached request's work in the store.)
struct LeastRecentlyUsedOrder<Key: Hashable & Sendable>: Sendable {
    private struct Slot: Sendable {
        /// `nil` once the slot is free: a removed key is not kept alive by the order.
        var key: Key?
        var older: Int?
        var newer: Int?
    }

    private var slotOfKey: [Key: Int] = [:]
    private var slots: [Slot] = []
    /// Slots whose key was removed, reused before the array grows.
    private var freeSlots: [Int] = []
    private var oldestSlot: Int?
    private var newestSlot: Int?

    /// The number of keys.
    var count: Int { slotOfKey.count }

    /// The least recently used key.
    var oldest: Key? { oldestSlot.flatMap { slots[$0].key } }

    /// Makes `key` the most recently used, adding it if new.
    mutating func touch(_ key: Key) {
        // Touching the newest key again (a store reading the entry it just wrote) changes
        // nothing, and a comparison is cheaper than hashing the key.
        if let newestSlot, slots[newestSlot].key == key { return }
        if let slot = slotOfKey[key] {
            unlink(slot)
            linkAsNewest(slot)
            return
        }
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            slots[slot].key = key
        } else {
            slot = slots.count
            slots.append(Slot(key: key))
        }
        slotOfKey[key] = slot
        linkAsNewest(slot)
    }

    /// Forgets `key`.
    mutating func remove(_ key: Key) {
        guard let slot = slotOfKey.removeValue(forKey: key) else { return }
        unlink(slot)
        slots[slot].key = nil
        freeSlots.append(slot)
    }

    /// Forgets every key.
    mutating func removeAll() {
        self = LeastRecentlyUsedOrder()
    }

    /// The keys from least to most recently used.
    var keysOldestFirst: [Key] {
        var keys: [Key] = []
        var cursor = oldestSlot
        while let slot = cursor {
            if let key = slots[slot].key { keys.append(key) }
            cursor = slots[slot].newer
        }
        return keys
    }

    /// Takes `slot` out of the list, joining its neighbours.
    private mutating func unlink(_ slot: Int) {
        let (older, newer) = (slots[slot].older, slots[slot].newer)
        if let older { slots[older].newer = newer } else { oldestSlot = newer }
        if let newer { slots[newer].older = older } else { newestSlot = older }
        slots[slot].older = nil
        slots[slot].newer = nil
    }

    /// Puts `slot`, which is out of the list, at its newest end.
    private mutating func linkAsNewest(_ slot: Int) {
        slots[slot].older = newestSlot
        if let newestSlot { slots[newestSlot].newer = slot }
        newestSlot = slot
        if oldestSlot == nil { oldestSlot = slot }
    }
}
