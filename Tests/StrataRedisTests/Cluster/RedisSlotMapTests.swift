@testable import StrataRedis
import Testing

@Suite("The slot map, from CLUSTER SHARDS and CLUSTER SLOTS replies")
struct RedisSlotMapTests {
    private let replying = RedisNodeAddress(host: "10.0.0.9", port: 7000)!

    private func text(_ value: String) -> RESPValue { .bulkString(Array(value.utf8)) }
    private func node(_ endpoint: String, _ port: Int, role: String = "master", health: String = "online") -> RESPValue {
        .array([
            text("id"), text(String(repeating: "a", count: 40)), text("port"), .integer(Int64(port)),
            text("ip"), text("10.0.0.\(port % 10)"), text("endpoint"), text(endpoint), text("role"), text(role),
            text("replication-offset"), .integer(42), text("health"), text(health),
        ])
    }
    private func shard(_ ranges: [Int], _ nodes: [RESPValue]) -> RESPValue {
        .array([text("slots"), .array(ranges.map { .integer(Int64($0)) }), text("nodes"), .array(nodes)])
    }
    private func address(_ host: String, _ port: Int) -> RedisNodeAddress { RedisNodeAddress(host: host, port: port)! }

    @Test("CLUSTER SHARDS: each shard's slot ranges go to its online primary, not its replicas")
    func shards() throws {
        let reply = RESPValue.array([
            shard([0, 5460], [node("127.0.0.1", 7001, role: "replica"), node("127.0.0.1", 7000)]),
            shard([5461, 10922, 16000, 16383], [node("host-b", 7002)]),
            shard([10923, 15999], [node("127.0.0.1", 7003, health: "failed"), node("127.0.0.1", 7004)]),
        ])
        let map = try RedisSlotMap(shards: reply, from: replying)
        #expect(map.node(for: 0) == address("127.0.0.1", 7000) && map.node(for: 5460) == address("127.0.0.1", 7000))
        #expect(map.node(for: 5461) == address("host-b", 7002) && map.node(for: 16383) == address("host-b", 7002))
        #expect(map.node(for: 12000) == address("127.0.0.1", 7004))
        #expect(map.servedSlots == 16_384 && map.primaries.count == 3)
    }

    @Test("CLUSTER SHARDS: an empty endpoint is the replying host, '?' falls back to the ip; a shard without primary is unserved")
    func shardsEndpoints() throws {
        let reply = RESPValue.array([
            shard([0, 9], [node("", 7001)]),
            shard([10, 19], [node("?", 7002)]),
            shard([20, 29], [node("127.0.0.1", 7003, role: "replica")]),
        ])
        let map = try RedisSlotMap(shards: reply, from: replying)
        #expect(map.node(for: 0) == address("10.0.0.9", 7001))
        #expect(map.node(for: 10) == address("10.0.0.2", 7002))
        #expect(map.node(for: 20) == nil && map.node(for: 30) == nil && map.servedSlots == 20)
    }

    @Test("CLUSTER SHARDS over TLS: each node's tls-port is used, and a node announcing none is not reached in plain text")
    func shardsOverTLS() throws {
        func tlsNode(_ port: Int?, tlsPort: Int?) -> RESPValue {
            var fields = [text("id"), text(String(repeating: "b", count: 40))]
            if let port { fields += [text("port"), .integer(Int64(port))] }
            if let tlsPort { fields += [text("tls-port"), .integer(Int64(tlsPort))] }
            return .array(fields + [text("ip"), text("10.0.0.1"), text("endpoint"), text("10.0.0.1"), text("role"), text("master")])
        }
        let reply = RESPValue.array([
            shard([0, 8191], [tlsNode(nil, tlsPort: 7100)]),
            shard([8192, 16383], [tlsNode(7001, tlsPort: nil)]),
        ])
        let overTLS = try RedisSlotMap(shards: reply, from: replying, tls: true)
        #expect(overTLS.node(for: 0) == address("10.0.0.1", 7100))
        #expect(overTLS.node(for: 8192) == nil)
        let plain = try RedisSlotMap(shards: reply, from: replying)
        #expect(plain.node(for: 0) == nil && plain.node(for: 8192) == address("10.0.0.1", 7001))
    }

    @Test("CLUSTER SHARDS: a primary without slots yet (a node being resharded into) is listed among the primaries, serving none")
    func slotlessPrimary() throws {
        let reply = RESPValue.array([shard([0, 16383], [node("10.0.0.1", 7000)]), shard([], [node("10.0.0.2", 7001)])])
        let map = try RedisSlotMap(shards: reply, from: replying)
        #expect(map.primaries == [address("10.0.0.1", 7000), address("10.0.0.2", 7001)])
        #expect(map.servedSlots == RedisHashSlot.count && map.node(for: 16383) == address("10.0.0.1", 7000))
    }

    @Test("CLUSTER SLOTS: [start, end, [endpoint, port, id], replicas…]; a null endpoint is the replying host")
    func slots() throws {
        let reply = RESPValue.array([
            .array([
                .integer(0), .integer(8191), .array([text("127.0.0.1"), .integer(7000), text("id1")]),
                .array([text("127.0.0.1"), .integer(7100), text("id2")]),
            ]),
            .array([.integer(8192), .integer(16383), .array([.bulkString(nil), .integer(7001), text("id3")])]),
        ])
        let map = try RedisSlotMap(slots: reply, from: replying)
        #expect(map.node(for: 8191) == address("127.0.0.1", 7000))
        #expect(map.node(for: 8192) == address("10.0.0.9", 7001))
        #expect(map.servedSlots == 16_384 && map.primaries.count == 2)
    }

    @Test("replies that are not topologies are typed errors, never crashes")
    func invalid() {
        let bad: [RESPValue] = [
            .integer(1), .array(nil), .array([.integer(1)]),
            .array([shard([0], [node("h", 1)])]),
            .array([shard([5, 4], [node("h", 1)])]),
            .array([shard([0, 16384], [node("h", 1)])]),
            .array([shard([-1, 3], [node("h", 1)])]),
            .array([.array([text("slots"), .array([]), text("nodes"), .array([.integer(3)])])]),
            .array([.array([text("slots")])]),
        ]
        for reply in bad {
            #expect(throws: RedisClientError.self, "\(reply)") { try RedisSlotMap(shards: reply, from: replying) }
        }
        let badSlots: [RESPValue] = [
            .simpleString("OK"),
            .array([.array([.integer(0), .integer(1)])]),
            .array([.array([.integer(0), .integer(99999), .array([text("h"), .integer(1)])])]),
            .array([.array([.integer(0), .integer(1), .array([text("h"), text("port")])])]),
        ]
        for reply in badSlots {
            #expect(throws: RedisClientError.self, "\(reply)") { try RedisSlotMap(slots: reply, from: replying) }
        }
    }

    @Test("more than 1,000 nodes are refused")
    func tooManyNodes() {
        let nodes = (0...RedisSlotMap.maxNodes).map { _ in node("h", 1, role: "replica") }
        #expect(throws: RedisClientError.self) { try RedisSlotMap(shards: .array([shard([0, 1], nodes)]), from: replying) }
    }

    @Test("a MOVED assignment changes one slot")
    func assign() {
        var map = RedisSlotMap([(0...16383, address("a", 1))])
        map.assign(42, to: address("b", 2))
        #expect(map.node(for: 42) == address("b", 2) && map.node(for: 41) == address("a", 1) && map.node(for: 43) == address("a", 1))
        #expect(map.primaries == [address("a", 1), address("b", 2)])
    }
}
