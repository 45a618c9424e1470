import Foundation
import Strata

/// A Redis Cluster client for ``RedisETagStore``: learns which primary serves each hash slot
/// from the seeds (`CLUSTER SHARDS`, or `CLUSTER SLOTS` before Redis 7), sends
/// each command to the primary of its key's slot over that node's own pool, and follows the
/// cluster's redirects:
///
/// - `MOVED`: the slot map is corrected at once, the command goes to the named node, and one
///   refresh of the whole map starts (joined, not repeated, by other redirects meanwhile).
/// - `ASK`: `ASKING` and the command go to the named node, once; the map is left alone, as the
///   slot is still being migrated.
/// - At most ``maxRedirects`` redirects per command, then
///   ``RedisClientError/tooManyRedirects(command:slot:limit:)``.
///
/// Trust: the client talks only to the seeds and the nodes named by a topology read from a
/// seed (never from another node, which could name anyone), within the allowed hosts when
/// given. A redirect to any other node first refreshes the map from the seeds, and is followed
/// only when the new map names that node; otherwise the command fails with
/// ``RedisClientError/untrustedNode(node:reason:)`` and nothing, `AUTH` included, is sent
/// there. Each refresh closes the connections of nodes the new map no longer names; a command
/// the map sent to a node a refresh dropped meanwhile (resharding, a failover) is routed once
/// more with that refresh's map before the node is refused.
///
/// A node that fails (down, unreachable, too slow) fails the commands for its slots and starts
/// a refresh (the cluster may have promoted a replica); each node has its own backoff, so the
/// other nodes' slots are unaffected. Commands whose keys span slots (`UNLINK` of a `SCAN`
/// batch) are split into one command per slot and their counts added up.
final class RedisClusterClient: RedisDeployment {
    /// The most redirects one command follows: a slot migration costs at most a `MOVED` and an
    /// `ASK`, so more means a misconfigured cluster (Jedis stops at 5 as well).
    static let maxRedirects = 5
    /// The most seed URLs accepted.
    static let maxSeeds = 64

    private let nodes: RedisClusterNodes
    private let topology: RedisTopologyRefresh

    /// Creates a client; nothing connects before the first command.
    ///
    /// - Parameters:
    ///   - seeds: `redis://[user:password@]host[:port]` URLs of one or more cluster nodes; they
    ///     must agree on the user and password (every node of a cluster is asked with them), and
    ///     name database 0 or none (a cluster has only database 0).
    ///   - tls: The TLS settings of `rediss://` seeds: every node is reached the same way,
    ///     and each node's certificate must name the host the cluster gives for it.
    ///   - allowedHosts: The hosts any node, seeds included, must have (``RedisNodeAllowList``),
    ///     or `nil` for no limit beyond the trust rule.
    ///   - nodeRecovered: Called when a node that had failed answers again.
    /// - Throws: ``RedisETagStoreError/invalidURL(_:reason:)`` for a seed that cannot work,
    ///   ``RedisETagStoreError/invalidParameter(_:reason:)`` for TLS settings or allowed hosts
    ///   that cannot.
    init(
        seeds: [URL], tls: RedisTLS?, allowedHosts: [String]? = nil,
        settings: (limits: RESPLimits, connectTimeout: Duration, commandTimeout: Duration),
        maxConnections: Int, retryDelays: (initial: Duration, max: Duration), clock: ErasedClock,
        nodeRecovered: @escaping @Sendable (_ missedOperations: Int) -> Void
    ) throws(RedisETagStoreError) {
        guard let firstSeed = seeds.first else {
            throw .invalidURL("[]", reason: "a cluster needs at least one seed URL, such as redis://node-1:6379")
        }
        guard seeds.count <= Self.maxSeeds else {
            throw .invalidURL("[\(seeds.count) URLs]", reason: "give at most \(Self.maxSeeds) seeds; the cluster names the other nodes")
        }
        let allowList = try allowedHosts.map(RedisNodeAllowList.init)
        var endpoints: [RedisEndpoint] = []
        for seed in seeds {
            let endpoint = try RedisEndpoint(url: seed)
            guard endpoint.database == 0 else {
                throw .invalidURL(
                    RedisEndpoint.redacted(seed), reason: "a Redis Cluster has database 0 only; remove the /\(endpoint.database)")
            }
            if let first = endpoints.first, first.user != endpoint.user || first.password?.value != endpoint.password?.value {
                throw .invalidURL(
                    RedisEndpoint.redacted(seed),
                    reason:
                        "every seed must name the same user and password as \(RedisEndpoint.redacted(firstSeed)): all nodes are asked with one"
                )
            }
            // Every node is reached the way the seeds are: one plain-text seed would send the
            // password in the clear that the others protect.
            if let first = endpoints.first, first.usesTLS != endpoint.usesTLS {
                throw .invalidURL(
                    RedisEndpoint.redacted(seed),
                    reason: "every seed must use the scheme of \(RedisEndpoint.redacted(firstSeed)): "
                        + "all rediss:// (a cluster with tls-cluster yes) or all redis://")
            }
            if let allowList, !allowList.allows(endpoint.host) {
                throw .invalidParameter(
                    "allowedHosts",
                    reason: "the seed \(RedisEndpoint.redacted(seed)) is outside it; add the seed's host or network, or remove the seed")
            }
            endpoints.append(endpoint)
        }
        var seen = Set<RedisNodeAddress>()
        let seedNodes = endpoints.map(RedisNodeAddress.init(endpoint:)).filter { seen.insert($0).inserted }
        let nodes = RedisClusterNodes(
            settings: .init(
                endpoint: endpoints[0], tls: try RedisTLS.connector(tls, for: endpoints[0]),
                limits: settings.limits, connectTimeout: settings.connectTimeout,
                commandTimeout: settings.commandTimeout, maxConnections: maxConnections, retryDelays: retryDelays),
            seeds: seen, allowList: allowList, clock: clock, nodeRecovered: nodeRecovered)
        self.nodes = nodes
        let usesTLS = endpoints[0].usesTLS
        // Only the seeds are asked: a topology is what makes a node trusted, so it must come
        // from a node the caller named. A seed that is down is skipped at once by its backoff.
        topology = RedisTopologyRefresh {
            await Self.discover(asking: seedNodes, tls: usesTLS, through: nodes)
        }
    }

    /// Every primary of the cluster's current map (learning the map first if needed).
    func primaries() async throws(RedisClientError) -> [RedisNodeAddress] {
        try await topology.map().primaries
    }

    /// Sends `commands`, each to the primary of its key's slot (keyless ones to `node`, or the
    /// first primary), pipelined per node, following redirects; returns the replies in order.
    ///
    /// - Throws: ``RedisClientError`` when the map cannot be learned, a node fails or backs
    ///   off, a slot has no node, a command is unknown, redirects exceed ``maxRedirects``, or a
    ///   redirect names a node that is not trusted, or the map still does after a refresh
    ///   (``RedisClientError/untrustedNode(node:reason:)``).
    func send(_ commands: [RedisCommand], keylessOn node: RedisNodeAddress?) async throws(RedisClientError) -> [RESPValue] {
        let map = try await topology.map()
        var pending: [Part] = []
        for (origin, command) in commands.enumerated() {
            for (slot, single) in try RedisCommandKeys.split(command) {
                pending.append(
                    Part(
                        origin: origin, slot: slot, command: single,
                        target: Target(node: try Self.node(for: slot, keylessOn: node, in: map), asking: false),
                        route: slot == nil && node != nil ? .caller : .slotMap))
            }
        }
        var replies = Array(repeating: [RESPValue](), count: commands.count)
        var redirects = 0
        while !pending.isEmpty {
            var next: [Part] = []
            var moved = false
            for (target, parts) in Self.grouped(pending) {
                let answers: [RESPValue]
                do {
                    answers = try await send(parts.map(\.command), to: target)
                } catch {
                    guard case .untrustedNode = error else { throw error }
                    next += try await routedAgain(parts, awayFrom: target.node)
                    continue
                }
                for (part, answer) in zip(parts, answers) {
                    guard let redirect = RedisRedirect(answer, from: target.node) else {
                        replies[part.origin].append(answer)
                        continue
                    }
                    try await trust(redirect.node)
                    if redirect.kind == .moved {
                        topology.assign(redirect.slot, to: redirect.node)
                        moved = true
                    }
                    next.append(
                        Part(
                            origin: part.origin, slot: part.slot, command: part.command,
                            target: Target(node: redirect.node, asking: redirect.kind == .ask), route: .redirect))
                }
            }
            if moved { topology.refreshInBackground() }
            if let first = next.first(where: { $0.route == .redirect }) {
                if redirects == Self.maxRedirects {
                    throw .tooManyRedirects(command: first.command.name, slot: first.slot ?? -1, limit: Self.maxRedirects)
                }
                redirects += 1
            }
            pending = next
        }
        return replies.map(Self.combined)
    }

    /// The node `map` gives a command for `slot`; a keyless command goes to `node`, or else to
    /// the first primary.
    ///
    /// - Throws: ``RedisClientError/slotNotServed(slot:)`` when no node serves `slot`.
    private static func node(
        for slot: Int?, keylessOn node: RedisNodeAddress?, in map: RedisSlotMap
    ) throws(RedisClientError) -> RedisNodeAddress {
        guard let target = slot.map(map.node(for:)) ?? node ?? map.primaries.first else {
            throw slot.map { .slotNotServed(slot: $0) } ?? .invalidTopology(peer: "cluster", reason: "no primary")
        }
        return target
    }

    /// `parts`, which `node` refused to take because it is no longer trusted, routed once more
    /// with the map as it is when any refresh under way has ended.
    ///
    /// The slot map a command was routed with can be older than the trust: a refresh trusts
    /// the nodes of the topology it read before its map replaces the old one, so during
    /// resharding or a failover a command may be on its way to a node the cluster just gave
    /// up. That is an old map, not a node to refuse: the newest map names where the slot went.
    ///
    /// - Throws: ``RedisClientError/untrustedNode(node:reason:)`` for parts a redirect or the
    ///   caller sent to `node`, parts already routed again, or parts the newest map still
    ///   sends to `node` (outside the allowed hosts), with a reason that says which; what
    ///   routing throws.
    private func routedAgain(_ parts: [Part], awayFrom node: RedisNodeAddress) async throws(RedisClientError) -> [Part] {
        guard let refused = parts.first(where: { $0.route != .slotMap || $0.routedAgain }) else {
            let map = try await topology.settledMap()
            var routed: [Part] = []
            for part in parts {
                let target = try Self.node(for: part.slot, keylessOn: nil, in: map)
                guard target != node else { throw refusal(of: node, because: .stillMapped) }
                routed.append(
                    Part(
                        origin: part.origin, slot: part.slot, command: part.command,
                        target: Target(node: target, asking: false), route: .slotMap, routedAgain: true))
            }
            return routed
        }
        throw refusal(of: node, because: refused.route == .slotMap ? .droppedTwice : .droppedOnTheWay)
    }

    /// Why a node is refused, for the reason of ``RedisClientError/untrustedNode(node:reason:)``.
    private enum Refusal {
        /// A redirect named it and no topology read from the seeds does, even after a refresh.
        case unknownToSeeds
        /// A redirect or the caller named a node the seeds' topology named then, and a topology
        /// read since does not.
        case droppedOnTheWay
        /// The slot map sent the command there, a refresh dropped the node, and the newest map
        /// sent it to a node dropped again.
        case droppedTwice
        /// Even the newest map sends the command there.
        case stillMapped
    }

    /// The error refusing `node`: outside the allowed hosts, or what `refusal` says happened.
    private func refusal(of node: RedisNodeAddress, because refusal: Refusal) -> RedisClientError {
        guard nodes.allows(node) else { return .untrustedNode(node: node.description, reason: nodes.untrustedReason(node)) }
        let reason =
            switch refusal {
            case .unknownToSeeds:
                "a redirect named it and no topology read from a seed names it (a misconfigured or compromised node "
                    + "redirected there); compare CLUSTER SHARDS on the seeds with the node that sent the redirect"
            case .droppedOnTheWay:
                "the topology read from the seeds named it, but one read since no longer does (resharding or a "
                    + "failover under way); the next operation is routed with the new map"
            case .droppedTwice:
                "the slot map named it, but the topology read from the seeds no longer does, twice while this command "
                    + "was routed (resharding or a failover under way); the next operation is routed with the new map"
            case .stillMapped:
                "the slot map names it, but the topology read from the seeds does not (a MOVED that arrived as a "
                    + "refresh dropped the node); the next refresh replaces the map"
            }
        return .untrustedNode(node: node.description, reason: reason)
    }

    /// Returns when `node`, named by a redirect, is trusted: at once when the current map or
    /// the seeds name it, else after the map was refreshed from the seeds and names it.
    ///
    /// - Throws: ``RedisClientError/untrustedNode(node:reason:)`` when even the refreshed map
    ///   does not name it (or one refreshed less than a second ago did not), or it is outside
    ///   the allowed hosts.
    private func trust(_ node: RedisNodeAddress) async throws(RedisClientError) {
        if nodes.trusts(node) { return }
        // No topology can make a node outside the allowed hosts trusted: nothing to ask.
        guard nodes.allows(node) else { throw refusal(of: node, because: .unknownToSeeds) }
        // The seeds disowned it a moment ago; asking again for every redirect would let one
        // node make the seeds read out the topology once per command.
        guard !nodes.refusedRecently(node) else { throw refusal(of: node, because: .unknownToSeeds) }
        // The redirect may be news the map has not caught up with (a node just added and
        // resharded into): the seeds decide, not the node that sent the redirect.
        await topology.refresh()
        if nodes.trusts(node) { return }
        nodes.recordRefusal(of: node)
        throw refusal(of: node, because: .unknownToSeeds)
    }

    /// One command on its way to one node.
    private struct Part {
        var origin: Int
        var slot: Int?
        var command: RedisCommand
        var target: Target
        /// What chose `target`.
        var route: Route
        /// Whether the command was routed again after the node the map first gave refused it.
        var routedAgain = false
    }

    /// What sent a command to its node.
    private enum Route {
        /// The slot map (a keyless command without a node: its first primary).
        case slotMap
        /// The caller, for a keyless command (``removeAll`` scans each primary).
        case caller
        /// A `MOVED` or `ASK`.
        case redirect
    }

    /// A node, and whether the command must be preceded by `ASKING` there.
    private struct Target: Hashable {
        var node: RedisNodeAddress
        var asking: Bool
    }

    /// Sends one batch to `target`, each command preceded by `ASKING` when asked to, and
    /// returns the commands' own replies. A node that fails may have been replaced: the map is
    /// refreshed.
    private func send(_ commands: [RedisCommand], to target: Target) async throws(RedisClientError) -> [RESPValue] {
        let batch = target.asking ? commands.flatMap { [RedisCommand("ASKING"), $0] } : commands
        let replies: [RESPValue]
        do {
            replies = try await nodes.send(batch, to: target.node)
        } catch {
            if case .clusterNodeFailed = error { topology.refreshInBackground() }
            throw error
        }
        // `ASKING` answers OK and applies to the next command only; its replies are dropped.
        return target.asking ? stride(from: 1, to: replies.count, by: 2).map { replies[$0] } : replies
    }

    /// `parts` grouped by target, each group in its original order, groups in order of first
    /// appearance, so a batch for one key stays one pipeline to one node.
    private static func grouped(_ parts: [Part]) -> [(Target, [Part])] {
        var order: [Target] = []
        var groups: [Target: [Part]] = [:]
        for part in parts {
            if groups[part.target] == nil { order.append(part.target) }
            groups[part.target, default: []].append(part)
        }
        return order.map { ($0, groups[$0] ?? []) }
    }

    /// The reply to a command sent as one or more per-slot parts: the reply itself, or for
    /// split commands (counts), the first error or else the sum of the counts.
    private static func combined(_ replies: [RESPValue]) -> RESPValue {
        guard replies.count > 1 else { return replies.first ?? .array(nil) }
        if let error = replies.first(where: { $0.errorCode != nil }) { return error }
        return .integer(
            replies.reduce(0) { total, reply in
                if case .integer(let count) = reply { total + count } else { total }
            })
    }

    /// Asks `seeds` in turn for the cluster's topology and returns the first map that serves
    /// every slot, or else the one that serves the most; from then on the nodes trusted are
    /// the seeds and that map's.
    private static func discover(
        asking seeds: [RedisNodeAddress], tls: Bool,
        through nodes: RedisClusterNodes
    ) async -> Result<RedisSlotMap, RedisClientError> {
        var best: RedisSlotMap?
        var lastFailure = "no node to ask"
        for seed in seeds {
            do throws(RedisClientError) {
                let map = try await topology(of: seed, tls: tls, through: nodes)
                if map.servedSlots == RedisHashSlot.count {
                    best = map
                    break
                }
                if map.servedSlots > best?.servedSlots ?? 0 { best = map }
                lastFailure = "\(seed) knows a node for \(map.servedSlots) of \(RedisHashSlot.count) slots"
            } catch {
                lastFailure = error.description
            }
        }
        guard let best else { return .failure(.clusterUnreachable(tried: seeds.count, lastFailure: lastFailure)) }
        nodes.trust(only: best.primaries)
        return .success(best)
    }

    /// One seed's view of the cluster: `CLUSTER SHARDS`, or `CLUSTER SLOTS` when the node is
    /// older than Redis 7 and does not know `SHARDS`.
    private static func topology(
        of node: RedisNodeAddress, tls: Bool,
        through nodes: RedisClusterNodes
    ) async throws(RedisClientError) -> RedisSlotMap {
        let shards = try await nodes.send([RedisCommand("CLUSTER", "SHARDS")], to: node)[0]
        guard case .error(let message) = shards else { return try RedisSlotMap(shards: shards, from: node, tls: tls) }
        if message.localizedCaseInsensitiveContains("cluster support disabled") {
            throw .invalidTopology(
                peer: node.description, reason: "the server is not in cluster mode (cluster-enabled no); use RedisETagStore(url:)")
        }
        guard message.localizedCaseInsensitiveContains("unknown subcommand") else {
            throw .invalidTopology(peer: node.description, reason: "CLUSTER SHARDS was refused: \(message.prefix(160))")
        }
        let slots = try await nodes.send([RedisCommand("CLUSTER", "SLOTS")], to: node)[0]
        if case .error(let message) = slots {
            throw .invalidTopology(peer: node.description, reason: "CLUSTER SLOTS was refused: \(message.prefix(160))")
        }
        return try RedisSlotMap(slots: slots, from: node)
    }
}
