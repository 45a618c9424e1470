import Foundation
import RedisTestServer
import Strata
import StrataTesting
@testable import StrataRedis
import Testing
import TestSupport

extension Trait where Self == ConditionTrait {
    /// Runs the test only when `redis-server` and `redis-cli` are installed: these tests start a
    /// real three-primary cluster. `.ci/run` installs both, so CI never skips them.
    static var needsRedisCluster: Self {
        .enabled(
            if: RedisClusterProcess.isInstalled,
            "redis-server or redis-cli is not installed: apt-get install redis-server (CI installs it)")
    }
}

/// A store on `seeds` with the test timeouts and a hand-moved clock for each node's backoff.
func makeClusterStore(
    _ seeds: [URL], namespace: String = "test:etag", time: TestClock = TestClock(),
    events: StoreEvents? = nil
) throws -> ObservedStore {
    ObservedStore(
        inner: try RedisETagStore(
            topology: .cluster(seeds: seeds), namespace: namespace, timeToLive: nil, maxEntryBytes: 8 << 20, maxConnections: 4,
            connectTimeout: TestTimeScale.scaled(.seconds(2)), commandTimeout: TestTimeScale.scaled(.seconds(5)),
            retryDelays: (.milliseconds(100), .seconds(5)), clock: time), events: events)
}

/// What tests do to a cluster behind the stores' backs: read who owns a slot, migrate slots.
struct ClusterAdmin {
    let cluster: RedisClusterProcess
    /// One single-connection client per node.
    let nodes: [RedisAdmin]
    /// Each node's cluster id (`CLUSTER MYID`).
    let ids: [String]

    init(_ cluster: RedisClusterProcess) async throws {
        self.cluster = cluster
        nodes = try cluster.nodes.map { try RedisAdmin($0.url()) }
        var ids: [String] = []
        for node in nodes {
            guard case .bulkString(let id?) = try await node.run("CLUSTER", "MYID") else { throw AdminError("no CLUSTER MYID") }
            ids.append(String(decoding: id, as: UTF8.self))
        }
        self.ids = ids
    }

    struct AdminError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// For each slot, the index of the node serving it, as node 0 sees the cluster.
    func owners() async throws -> [Int] {
        let reply = try await nodes[0].run("CLUSTER", "SHARDS")
        let map = try RedisSlotMap(shards: reply, from: RedisNodeAddress(host: "127.0.0.1", port: cluster.nodes[0].port)!)
        return try (0..<RedisHashSlot.count).map { slot in
            guard let node = map.node(for: slot), let index = cluster.nodes.firstIndex(where: { $0.port == node.port }) else {
                throw AdminError("no node serves slot \(slot)")
            }
            return index
        }
    }

    /// The slot of the Redis key a store with `namespace` writes `storeKey` under.
    static func slot(of storeKey: String, namespace: String = "test:etag") throws -> Int {
        RedisHashSlot.of(Array(try RedisKeyspace(namespace: namespace).redisKey(for: storeKey).utf8))
    }

    /// Marks `slot` as leaving `source` for `target` (`IMPORTING` on the target first, then
    /// `MIGRATING` on the source, the order the specification gives).
    func beginMigration(_ slot: Int, from source: Int, to target: Int) async throws {
        try await expectOK(nodes[target].run("CLUSTER", "SETSLOT", RedisArgument(slot), "IMPORTING", RedisArgument(ids[source])))
        try await expectOK(nodes[source].run("CLUSTER", "SETSLOT", RedisArgument(slot), "MIGRATING", RedisArgument(ids[target])))
    }

    /// Moves every key of `slot` from `source` to `target` (`MIGRATE … KEYS`), in batches.
    func moveKeys(_ slot: Int, from source: Int, to target: Int) async throws {
        while true {
            guard case .array(let keys?) = try await nodes[source].run("CLUSTER", "GETKEYSINSLOT", RedisArgument(slot), "100"),
                !keys.isEmpty
            else { return }
            let names = keys.compactMap { if case .bulkString(let key?) = $0 { RedisArgument(bytes: key) } else { nil } }
            let reply = try await nodes[source].client.send([
                RedisCommand(
                    "MIGRATE", arguments: ["127.0.0.1", RedisArgument(cluster.nodes[target].port), "", "0", "5000", "KEYS"] + names)
            ])[0]
            // NOKEY: the keys went away meanwhile; the next GETKEYSINSLOT says what is left.
            if reply != .simpleString("NOKEY") { try expectOK(reply) }
        }
    }

    /// Gives `slot` to `target` on every node (`SETSLOT … NODE`), target first.
    func finishMigration(_ slot: Int, to target: Int) async throws {
        for node in [target] + nodes.indices.filter({ $0 != target }) {
            try await expectOK(nodes[node].run("CLUSTER", "SETSLOT", RedisArgument(slot), "NODE", RedisArgument(ids[target])))
        }
    }

    /// The whole migration of `slot`, keys included.
    func migrate(_ slot: Int, from source: Int, to target: Int) async throws {
        try await beginMigration(slot, from: source, to: target)
        try await moveKeys(slot, from: source, to: target)
        try await finishMigration(slot, to: target)
    }

    /// How many keys of `slot` node `node` holds.
    func keyCount(_ slot: Int, on node: Int) async throws -> Int64 {
        guard case .integer(let count) = try await nodes[node].run("CLUSTER", "COUNTKEYSINSLOT", RedisArgument(slot)) else { return -1 }
        return count
    }

    /// How many keys node `node` holds.
    func size(of node: Int) async throws -> Int64 {
        guard case .integer(let count) = try await nodes[node].run("DBSIZE") else { return -1 }
        return count
    }

    private func expectOK(_ reply: RESPValue) throws {
        guard reply == .simpleString("OK") else { throw AdminError("expected OK, got \(reply)") }
    }
}

/// Store keys (URLs) whose entries land on the node `node` of `admin`'s cluster, `count` of them.
func storeKeys(onNode node: Int, count: Int, admin: ClusterAdmin, namespace: String = "test:etag") async throws -> [String] {
    let owners = try await admin.owners()
    var keys: [String] = []
    var index = 0
    while keys.count < count {
        let key = "https://api.example/items/\(index)"
        if try owners[ClusterAdmin.slot(of: key, namespace: namespace)] == node { keys.append(key) }
        index += 1
    }
    return keys
}

/// A count of finished requests that a concurrent task can wait on, so a slot migration is
/// paced by the requests running through it (no sleeps).
final class RequestProgress: Sendable {
    private struct State {
        var done = 0
        var finished = false
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = LockedValue(State())

    var done: Int { state.withLock { $0.done } }

    /// Counts one finished request.
    func advance() { resume { $0.done += 1 } }

    /// Marks every request finished: every wait returns.
    func finish() { resume { $0.finished = true } }

    /// Returns once `count` requests have finished, or all have.
    func wait(forAtLeast count: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if state.done >= count || state.finished { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private func resume(after change: (inout State) -> Void) {
        let ready = state.withLock { state in
            change(&state)
            let ready = state.waiters.filter { state.finished || state.done >= $0.count }
            state.waiters.removeAll { state.finished || state.done >= $0.count }
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
    }
}
