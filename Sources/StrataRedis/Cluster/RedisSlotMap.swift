/// Which primary serves each of a cluster's 16,384 hash slots, as last learned from the cluster
/// (`CLUSTER SHARDS` or `CLUSTER SLOTS`, see `RedisSlotMap+Replies.swift`) and corrected by
/// `MOVED` redirects. A value: a refresh builds a new map and swaps it in whole.
struct RedisSlotMap: Hashable, Sendable {
    /// The primaries, each once, in the order the cluster listed them, including primaries
    /// that serve no slot yet (a node being resharded into, which `ASK` redirects name).
    private(set) var primaries: [RedisNodeAddress]
    /// For each slot, an index into ``primaries``, or `unserved`.
    private var owners: [UInt16]
    private static let unserved = UInt16.max

    /// Creates a map from `ranges` (inclusive slot ranges, each given to a node); slots no range
    /// names are unserved. A later range wins over an earlier one for a slot both name.
    /// `slotless` primaries are listed after the others, serving nothing.
    init(_ ranges: [(slots: ClosedRange<Int>, node: RedisNodeAddress)], slotless: [RedisNodeAddress] = []) {
        primaries = []
        owners = Array(repeating: Self.unserved, count: RedisHashSlot.count)
        for (slots, node) in ranges {
            let clamped = slots.clamped(to: 0...(RedisHashSlot.count - 1))
            guard !clamped.isEmpty else { continue }
            let index = primaryIndex(of: node)
            for slot in clamped { owners[slot] = index }
        }
        for node in slotless { _ = primaryIndex(of: node) }
    }

    /// The node serving `slot`, or `nil` when no node does (a shard lost its primary, or the
    /// cluster is still being set up).
    func node(for slot: Int) -> RedisNodeAddress? {
        guard (0..<RedisHashSlot.count).contains(slot) else { return nil }
        let index = owners[slot]
        return index == Self.unserved ? nil : primaries[Int(index)]
    }

    /// How many slots have a node.
    var servedSlots: Int { owners.lazy.filter { $0 != Self.unserved }.count }

    /// Records that `node` serves `slot` now, as a `MOVED` redirect says. A primary left without
    /// slots stays listed until the next refresh replaces the whole map.
    mutating func assign(_ slot: Int, to node: RedisNodeAddress) {
        guard (0..<RedisHashSlot.count).contains(slot) else { return }
        owners[slot] = primaryIndex(of: node)
    }

    private mutating func primaryIndex(of node: RedisNodeAddress) -> UInt16 {
        if let index = primaries.firstIndex(of: node) { return UInt16(index) }
        primaries.append(node)
        return UInt16(primaries.count - 1)
    }
}
