import Strata
import StrataPinning

/// The connections to each node of a cluster: one ``RedisClient`` (a bounded pool) per node,
/// opened on demand with the seed's credentials, and one circuit breaker per node
/// (``RedisAvailability``), so a dead node makes only its own slots misses: after it fails it
/// is left alone for a growing delay while the other nodes are asked as usual.
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

    private let settings: Settings
    private let clock: ErasedClock
    private let nodeRecovered: @Sendable (_ missedOperations: Int) -> Void
    private let nodes = LockedValue<[RedisNodeAddress: Node]>([:])

    /// Creates the set with no connection.
    ///
    /// - Parameter nodeRecovered: Called, in the task of the command that found out, when a node
    ///   that had failed answers again, with how many operations went without it meanwhile.
    init(settings: Settings, clock: ErasedClock, nodeRecovered: @escaping @Sendable (_ missedOperations: Int) -> Void) {
        self.settings = settings
        self.clock = clock
        self.nodeRecovered = nodeRecovered
    }

    /// Sends `commands` as one pipelined batch to `node`, unless it failed recently.
    ///
    /// - Throws: ``RedisClientError/backingOff(peer:retryAfter:lastFailure:)`` while the node is
    ///   left alone; ``RedisClientError/clusterNodeFailed(reason:)`` when it is down, unreachable
    ///   or too slow (which starts its delay); other ``RedisClientError``s as the node's client
    ///   throws them.
    func send(_ commands: [RedisCommand], to node: RedisNodeAddress) async throws(RedisClientError) -> [RESPValue] {
        let now = clock.elapsed()
        let (client, admission) = nodes.withLock { nodes in
            let entry =
                nodes[node]
                ?? Node(
                    client: makeClient(node),
                    availability: RedisAvailability(
                        initialDelay: settings.retryDelays.initial, maxDelay: settings.retryDelays.max))
            var availability = entry.availability
            let admission = availability.admit(at: now)
            nodes[node] = Node(client: entry.client, availability: availability)
            return (entry.client, admission)
        }
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

    /// Closes the connections of every node not in `kept` (nodes that left the cluster);
    /// their connections close once no command uses them.
    func retain(only kept: Set<RedisNodeAddress>) {
        nodes.withLock { nodes in nodes = nodes.filter { kept.contains($0.key) } }
    }

    private func update(_ node: RedisNodeAddress, _ change: (inout RedisAvailability) -> Void) {
        nodes.withLock { nodes in
            guard var entry = nodes[node] else { return }
            change(&entry.availability)
            nodes[node] = entry
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
