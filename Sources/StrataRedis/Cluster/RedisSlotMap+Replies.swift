/// Building a ``RedisSlotMap`` from a node's description of the cluster: `CLUSTER SHARDS`
/// (Redis 7 and later) or `CLUSTER SLOTS` (older servers), RESP2 forms.
///
/// Every field is checked: slot numbers within 0...16383 and ordered, ports within 1...65535,
/// hosts of at most 255 bytes, at most ``maxNodes`` nodes, so a broken or hostile reply is a
/// typed error and never a crash. A node's endpoint that is null or empty means "the host you
/// asked" (Redis sends it when a node does not know its own address, or for clusters behind a
/// load balancer); `?` means unknown, and then its `ip` is used (`CLUSTER SHARDS` only).
extension RedisSlotMap {
    /// The most nodes a topology reply may list: Redis Cluster is designed for up to 1,000.
    static let maxNodes = 1_000

    /// Reads a `CLUSTER SHARDS` reply: an array of shards, each a flat `slots`/`nodes` map;
    /// `slots` holds start and end slots in pairs, `nodes` one flat map per node (`endpoint`,
    /// `ip`, `port`, `tls-port`, `role`, `health`, …). Each shard's slots go to its `master`
    /// node, preferring one whose health is `online`; a shard without a primary leaves its slots
    /// unserved, and a primary without slots is listed serving none.
    ///
    /// - Parameter tls: Whether nodes are reached over TLS: each node's `tls-port` is read
    ///   instead of its `port` (with `tls-cluster yes` a node lists both, and `port` is the
    ///   plain-text one, or absent for a TLS-only node).
    /// - Throws: ``RedisClientError/invalidTopology(peer:reason:)``.
    init(shards reply: RESPValue, from replying: RedisNodeAddress, tls: Bool = false) throws(RedisClientError) {
        func invalid(_ reason: String) -> RedisClientError { .invalidTopology(peer: replying.description, reason: reason) }
        guard case .array(let shards?) = reply else { throw invalid("CLUSTER SHARDS did not answer with an array") }
        var ranges: [(slots: ClosedRange<Int>, node: RedisNodeAddress)] = []
        var slotless: [RedisNodeAddress] = []
        var nodeCount = 0
        for shard in shards {
            guard let fields = Self.fields(shard), case .array(let slots?)? = fields["slots"],
                case .array(let nodes?)? = fields["nodes"]
            else {
                throw invalid("a shard is not a map with slots and nodes")
            }
            nodeCount += nodes.count
            guard nodeCount <= Self.maxNodes else { throw invalid("more than \(Self.maxNodes) nodes") }
            guard slots.count.isMultiple(of: 2) else { throw invalid("a shard's slots are not start-end pairs") }
            var primary: (node: RedisNodeAddress, online: Bool)?
            for node in nodes {
                guard let node = Self.fields(node) else { throw invalid("a node is not a map") }
                guard Self.text(node["role"]) == "master" else { continue }
                guard let address = Self.address(node, replying: replying, tls: tls) else { continue }
                let online = Self.text(node["health"]) == "online"
                if primary == nil || (online && primary?.online == false) { primary = (address, online) }
            }
            guard let primary else { continue }
            if slots.isEmpty { slotless.append(primary.node) }
            for pair in stride(from: 0, to: slots.count, by: 2) {
                ranges.append((try Self.slotRange(slots[pair], slots[pair + 1], invalid: invalid), primary.node))
            }
        }
        self.init(ranges, slotless: slotless)
    }

    /// Reads a `CLUSTER SLOTS` reply: an array of `[start, end, primary, replicas…]`, each node
    /// as `[endpoint, port, id, …]`. Redis gives each client the port of its own kind of
    /// connection (the TLS port to a TLS client), as it does in `MOVED` and `ASK`.
    ///
    /// - Throws: ``RedisClientError/invalidTopology(peer:reason:)``.
    init(slots reply: RESPValue, from replying: RedisNodeAddress) throws(RedisClientError) {
        func invalid(_ reason: String) -> RedisClientError { .invalidTopology(peer: replying.description, reason: reason) }
        guard case .array(let entries?) = reply else { throw invalid("CLUSTER SLOTS did not answer with an array") }
        guard entries.count <= RedisHashSlot.count else { throw invalid("more slot ranges than slots") }
        var ranges: [(slots: ClosedRange<Int>, node: RedisNodeAddress)] = []
        for entry in entries {
            guard case .array(let entry?) = entry, entry.count >= 3, case .array(let primary?) = entry[2],
                primary.count >= 2, case .integer(let port) = primary[1]
            else {
                throw invalid("a slot range is not [start, end, [endpoint, port, …], …]")
            }
            guard entry.count - 2 <= Self.maxNodes else { throw invalid("more than \(Self.maxNodes) nodes") }
            let slots = try Self.slotRange(entry[0], entry[1], invalid: invalid)
            let endpoint: String? =
                switch primary[0] {
                case .bulkString(nil): replying.host
                case .bulkString(let bytes?): bytes.isEmpty ? replying.host : String(decoding: bytes, as: UTF8.self)
                default: nil
                }
            guard let endpoint, endpoint != "?", let node = RedisNodeAddress(host: endpoint, port: Int(clamping: port)) else {
                continue
            }
            ranges.append((slots, node))
        }
        self.init(ranges)
    }

    /// The fields of a flat `[name, value, name, value, …]` array, or `nil` when it is not one.
    private static func fields(_ value: RESPValue) -> [String: RESPValue]? {
        guard case .array(let items?) = value, items.count.isMultiple(of: 2) else { return nil }
        var fields: [String: RESPValue] = [:]
        for pair in stride(from: 0, to: items.count, by: 2) {
            guard let name = text(items[pair]) else { return nil }
            fields[name] = items[pair + 1]
        }
        return fields
    }

    private static func text(_ value: RESPValue?) -> String? {
        switch value {
        case .bulkString(let bytes?)?: String(decoding: bytes, as: UTF8.self)
        case .simpleString(let text)?: text
        default: nil
        }
    }

    private static func integer(_ value: RESPValue?) -> Int? {
        switch value {
        case .integer(let number)?: Int(exactly: number)
        case .bulkString(let bytes?)? where bytes.count <= 19: Int(String(decoding: bytes, as: UTF8.self))
        default: nil
        }
    }

    /// Where a `CLUSTER SHARDS` node accepts this client: its preferred endpoint (or `ip` when
    /// that is unknown) and `port` (`tls-port` over TLS); `nil` for a node with no usable
    /// address or none for this kind of connection.
    private static func address(_ node: [String: RESPValue], replying: RedisNodeAddress, tls: Bool) -> RedisNodeAddress? {
        guard let port = integer(node[tls ? "tls-port" : "port"]) else { return nil }
        var host = text(node["endpoint"]) ?? text(node["ip"])
        if host == "?" { host = text(node["ip"]) }
        guard let host, host != "?" else { return RedisNodeAddress(host: replying.host, port: port) }
        return RedisNodeAddress(host: host.isEmpty ? replying.host : host, port: port)
    }

    private static func slotRange(
        _ start: RESPValue, _ end: RESPValue,
        invalid: (String) -> RedisClientError
    ) throws(RedisClientError) -> ClosedRange<Int> {
        guard let start = integer(start), let end = integer(end),
            0 <= start, start <= end, end < RedisHashSlot.count
        else {
            throw invalid("a slot range is not two slot numbers from 0 to \(RedisHashSlot.count - 1), in order")
        }
        return start...end
    }
}
