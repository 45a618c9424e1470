import Strata
import StrataPinning

/// The connections to each node of a cluster: one ``RedisClient`` (a bounded pool) per node,
/// opened on demand with the seed's credentials, and one circuit breaker per node
/// (``RedisAvailability``), so a dead node makes only its own slots misses: after it fails it
/// is left alone for a growing delay while the other nodes are asked as usual.
///
/// Only trusted nodes are connected to: the seeds, and the nodes named by the topology last
/// read from a seed (``trust(only:)``), each also within the allowed hosts when there are any.
/// A command for any other node is refused before a connection is opened, so the seeds'
/// credentials (`AUTH`) and the entries never reach a node a redirect merely named.
final class RedisClusterNodes: Sendable {
    /// How every node connection is made.
    struct Settings: Sendable {
        /// The credentials (and database 0) of the seeds; host and port are each node's.
        var endpoint: RedisEndpoint
        /// The TLS checks every node's connections run, `nil` for `redis://`.
        var tls: VerifiedTLSConnector?
        var limits: RESPLimits
        var connectTimeout: Duration
        var commandTimeout: Duration
        /// Per node.
        var maxConnections: Int
        var retryDelays: (initial: Duration, max: Duration)
    }

    private struct Node {
        let client: RedisClient
        var availability: RedisAvailability
    }

    /// The nodes with a client, the nodes that may have one, and when each node a refreshed
    /// map did not name was last refused.
    private struct State {
        var nodes: [RedisNodeAddress: Node] = [:]
        var trusted: Set<RedisNodeAddress>
        var refused: [RedisNodeAddress: Duration] = [:]
    }

    /// How long a node that a refreshed map did not name is refused without reading the map
    /// again: a node that redirects every command to a stranger then costs the seeds one
    /// topology read per second, not one per command.
    static let refusalHoldDown = Duration.seconds(1)
    /// The most refused nodes remembered; a node redirecting to ever new strangers costs a
    /// bounded table (past it, the oldest refusals are forgotten and asked about again).
    static let maxRefusedNodes = 256

    private let settings: Settings
    private let clock: ErasedClock
    private let nodeRecovered: @Sendable (_ missedOperations: Int) -> Void
    private let seeds: Set<RedisNodeAddress>
    private let allowList: RedisNodeAllowList?
    private let state: LockedValue<State>

    /// Creates the set with no connection, trusting the seeds only.
    ///
    /// - Parameters:
    ///   - seeds: The nodes the caller named, always trusted (each within `allowList`).
    ///   - allowList: The hosts any node must have, or `nil` for no limit beyond the trust rule.
    ///   - nodeRecovered: Called, in the task of the command that found out, when a node that
    ///     had failed answers again, with how many operations went without it meanwhile.
    init(
        settings: Settings, seeds: Set<RedisNodeAddress>, allowList: RedisNodeAllowList?, clock: ErasedClock,
        nodeRecovered: @escaping @Sendable (_ missedOperations: Int) -> Void
    ) {
        self.settings = settings
        self.clock = clock
        self.nodeRecovered = nodeRecovered
        self.seeds = seeds
        self.allowList = allowList
        state = LockedValue(State(trusted: seeds))
    }

    /// Whether commands may be sent to `node` now.
    func trusts(_ node: RedisNodeAddress) -> Bool {
        state.withLock { $0.trusted.contains(node) }
    }

    /// Whether `node` was refused after a refresh less than ``refusalHoldDown`` ago.
    func refusedRecently(_ node: RedisNodeAddress) -> Bool {
        let now = clock.elapsed()
        return state.withLock { state in state.refused[node].map { now - $0 < Self.refusalHoldDown } ?? false }
    }

    /// Records that a refreshed map did not name `node`, so redirects to it are refused without
    /// asking the seeds again for ``refusalHoldDown``.
    func recordRefusal(of node: RedisNodeAddress) {
        let now = clock.elapsed()
        state.withLock { state in
            state.refused = state.refused.filter { now - $0.value < Self.refusalHoldDown }
            if state.refused.count >= Self.maxRefusedNodes, let oldest = state.refused.min(by: { $0.value < $1.value }) {
                state.refused[oldest.key] = nil
            }
            state.refused[node] = now
        }
    }

    /// Whether `node` is within the allowed hosts, so a topology naming it would make it trusted.
    func allows(_ node: RedisNodeAddress) -> Bool {
        allowList?.allows(node.host) ?? true
    }

    /// Trusts the seeds and `named` (the nodes of a topology read from a seed) from now on, each
    /// within the allowed hosts, and closes the connections of every other node (nodes that left
    /// the cluster, or that an `ASK` named and no topology does); those close once no command
    /// uses them.
    func trust(only named: some Sequence<RedisNodeAddress>) {
        let trusted = seeds.union(named.filter(allows))
        state.withLock { state in
            state.trusted = trusted
            state.nodes = state.nodes.filter { trusted.contains($0.key) }
            state.refused = state.refused.filter { !trusted.contains($0.key) }
        }
    }

    /// Sends `commands` as one pipelined batch to `node`, unless it is not trusted or failed
    /// recently.
    ///
    /// - Throws: ``RedisClientError/untrustedNode(node:reason:)`` for a node ``trust(only:)``
    ///   did not name (nothing is sent, no connection opened);
    ///   ``RedisClientError/backingOff(peer:retryAfter:lastFailure:)`` while the node is left
    ///   alone; ``RedisClientError/clusterNodeFailed(reason:)`` when it is down, unreachable or
    ///   too slow (which starts its delay); other ``RedisClientError``s as the node's client
    ///   throws them.
    func send(_ commands: [RedisCommand], to node: RedisNodeAddress) async throws(RedisClientError) -> [RESPValue] {
        let now = clock.elapsed()
        let admitted: (client: RedisClient, admission: RedisAvailability.Admission)? = state.withLock { state in
            guard state.trusted.contains(node) else { return nil }
            let entry =
                state.nodes[node]
                ?? Node(
                    client: makeClient(node),
                    availability: RedisAvailability(
                        initialDelay: settings.retryDelays.initial, maxDelay: settings.retryDelays.max))
            var availability = entry.availability
            let admission = availability.admit(at: now)
            state.nodes[node] = Node(client: entry.client, availability: availability)
            return (entry.client, admission)
        }
        guard let (client, admission) = admitted else { throw .untrustedNode(node: node.description, reason: untrustedReason(node)) }
        if case .skip(let retryAfter, let lastFailure) = admission {
            throw .backingOff(peer: client.peer, retryAfter: retryAfter, lastFailure: lastFailure)
        }
        let replies: [RESPValue]
        do {
            replies = try await client.send(commands)
        } catch {
            let failed = error.marksServerUnavailable
            update(node) { availability in
                if failed {
                    availability.recordFailure(at: clock.elapsed(), reason: error.description)
                } else {
                    availability.recordInconclusive()
                }
            }
            throw failed ? .clusterNodeFailed(reason: error.description) : error
        }
        var missed: Int?
        update(node) { missed = $0.recordSuccess() }
        if let missed { nodeRecovered(missed) }
        return replies
    }

    /// Why `node` is not trusted, for the person reading the event. It says nothing of what
    /// sent the command there, which the cluster client knows and says instead.
    func untrustedReason(_ node: RedisNodeAddress) -> String {
        if !allows(node) {
            return "its host is outside allowedHosts; add it (or its network) if the node belongs to the cluster"
        }
        return "the topology last read from a seed does not name it"
    }

    private func update(_ node: RedisNodeAddress, _ change: (inout RedisAvailability) -> Void) {
        state.withLock { state in
            guard var entry = state.nodes[node] else { return }
            change(&entry.availability)
            state.nodes[node] = entry
        }
    }

    private func makeClient(_ node: RedisNodeAddress) -> RedisClient {
        RedisClient(
            settings: RedisConnection.Settings(
                endpoint: settings.endpoint.at(node), limits: settings.limits,
                connectTimeout: settings.connectTimeout,
                commandTimeout: settings.commandTimeout, tls: settings.tls),
            maxConnections: settings.maxConnections)
    }
}
