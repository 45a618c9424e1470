/// A cluster node's answer that another node serves a key's slot (Redis Cluster specification,
/// "Redirection and resharding").
///
/// - `MOVED <slot> <host>:<port>`: the slot belongs to that node now; update the slot map and
///   send this and later commands for the slot there.
/// - `ASK <slot> <host>:<port>`: the slot is being migrated and this key is already on that
///   node; send `ASKING` and the command there once, without changing the slot map.
struct RedisRedirect: Hashable, Sendable {
    /// Which of the two redirects.
    enum Kind: Hashable, Sendable {
        case moved
        case ask
    }

    let kind: Kind
    /// The slot the redirect is about.
    let slot: Int
    /// The node to ask instead.
    let node: RedisNodeAddress

    /// Reads `reply` as a redirect sent by `replying`; `nil` for any other reply, including a
    /// malformed `MOVED`/`ASK` line (which the caller then treats as an error reply).
    init?(_ reply: RESPValue, from replying: RedisNodeAddress) {
        guard case .error(let text) = reply else { return nil }
        let words = text.split(separator: " ", omittingEmptySubsequences: true)
        guard words.count == 3, let slot = Int(words[1]), (0..<RedisHashSlot.count).contains(slot),
            let node = RedisNodeAddress(words[2], sameHostAs: replying)
        else { return nil }
        switch words[0] {
        case "MOVED": kind = .moved
        case "ASK": kind = .ask
        default: return nil
        }
        self.slot = slot
        self.node = node
    }
}
