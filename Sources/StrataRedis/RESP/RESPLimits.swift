/// Bounds on what ``RESPParser`` accepts from a server, so a broken or hostile peer can make
/// the client neither allocate without bound nor recurse deeply: every reply over a limit is a
/// ``RESPParseError`` and the connection is closed.
struct RESPLimits: Hashable, Sendable {
    /// The longest status, error or integer line, and the longest length header. Redis's own
    /// error lines are a few hundred bytes.
    var maxLineBytes = 64 << 10
    /// The largest bulk string. The store sets it to its entry size bound, so a planted value
    /// larger than any entry it writes is refused without being buffered.
    var maxBulkBytes = 8 << 20
    /// The most elements one array may declare. `SCAN` replies hold about `COUNT` keys.
    var maxArrayCount = 1 << 16
    /// The deepest nesting of arrays; `SCAN` replies have depth 2.
    var maxDepth = 4
    /// The most bytes one top-level reply may take on the wire, all elements together.
    var maxReplyBytes = 16 << 20
}
