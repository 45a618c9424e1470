/// Why a Redis command did not produce a reply. `peer` is `host:port/db`; no error ever holds
/// a password, a command's arguments or a server message that could echo them.
enum RedisClientError: Error, Hashable, CustomStringConvertible {
    /// The host name did not resolve within the connect timeout.
    case cannotResolve(peer: String, reason: String)
    /// No connection could be opened (refused, unreachable).
    case cannotConnect(peer: String, reason: String)
    /// Resolving and connecting took longer than the connect timeout.
    case connectTimedOut(peer: String)
    /// A `rediss://` server's certificate was refused: its chain does not lead to the trusted
    /// roots, it does not name the host, or no pin matched. `reason` is the check's own account.
    case untrustedServer(peer: String, reason: String)
    /// The TLS handshake with a `rediss://` server failed for another reason, such as the server
    /// refusing the client certificate (or its absence).
    case tlsFailed(peer: String, reason: String)
    /// The server did not answer within the command timeout.
    case commandTimedOut(peer: String, command: String)
    /// The connection broke while writing or reading.
    case connectionLost(peer: String, reason: String)
    /// The server's bytes are not RESP2 within the limits, or more replies came than asked for.
    case protocolViolation(peer: String, reason: String)
    /// `AUTH` was refused; `code` is the server's error code (`WRONGPASS`, `NOAUTH`, `ERR`),
    /// never its message, which may repeat what was sent.
    case authenticationFailed(peer: String, code: String)
    /// `SELECT` was refused: a database number beyond the server's `databases` setting, or an
    /// ACL user without `+select`.
    case cannotSelectDatabase(peer: String, message: String)
    /// Every connection stayed busy until the command timeout.
    case noConnectionAvailable(peer: String, maxConnections: Int)
    /// The server failed recently and is not asked again before `retryAfter` has passed.
    case backingOff(peer: String, retryAfter: Duration, lastFailure: String)
    /// A cluster node's description of the cluster (`CLUSTER SHARDS`/`CLUSTER SLOTS`) is not
    /// one this client can use.
    case invalidTopology(peer: String, reason: String)
    /// No seed of the cluster described it; `lastFailure` says why the last one
    /// did not.
    case clusterUnreachable(tried: Int, lastFailure: String)
    /// One cluster node failed (`reason` names it and why); only the keys of its slots go
    /// without Redis until it answers again or the cluster gives its slots to another node.
    case clusterNodeFailed(reason: String)
    /// No node of the cluster serves the key's slot (a shard lost its primary, or the cluster is
    /// still being set up).
    case slotNotServed(slot: Int)
    /// The cluster sent the command from node to node more than `limit` times (a slot migration
    /// left half-configured, such as `MIGRATING` without `IMPORTING` on the target).
    case tooManyRedirects(command: String, slot: Int, limit: Int)
    /// The cluster client does not know which arguments of the command are keys.
    case unroutableCommand(String)
    /// A command was to go to cluster node `node` (a redirect or the slot map named it), which
    /// the client does not trust: no topology read from a seed names it, or it is outside the
    /// allowed hosts. Nothing was sent there; `reason` says which.
    case untrustedNode(node: String, reason: String)

    /// Whether the server itself is down, unreachable, slow or not accepting us, so the client
    /// waits before asking again; a busy pool or a bad reply to one command is not.
    var marksServerUnavailable: Bool {
        switch self {
        case .cannotResolve, .cannotConnect, .connectTimedOut, .untrustedServer, .tlsFailed, .commandTimedOut,
            .connectionLost, .authenticationFailed, .cannotSelectDatabase, .clusterUnreachable:
            true
        // Failures of one node or one slot leave the rest of a cluster usable: the cluster
        // client keeps each node's own backoff instead.
        case .protocolViolation, .noConnectionAvailable, .backingOff, .invalidTopology, .clusterNodeFailed,
            .slotNotServed, .tooManyRedirects, .unroutableCommand, .untrustedNode:
            false
        }
    }

    var description: String {
        switch self {
        case .cannotResolve(let peer, let reason):
            "cannot resolve the Redis host of \(peer): \(reason); check the host name in the URL"
        case .cannotConnect(let peer, let reason):
            "cannot connect to Redis at \(peer): \(reason); is redis-server running and reachable?"
        case .connectTimedOut(let peer):
            "connecting to Redis at \(peer) timed out; check the address and firewalls, or raise connectTimeout"
        case .untrustedServer(let peer, let reason):
            "Redis at \(peer) was not trusted over TLS: \(reason); check RedisTLS's trustRoots and evaluator and the host in the URL"
        case .tlsFailed(let peer, let reason):
            "the TLS handshake with Redis at \(peer) failed: \(reason); check RedisTLS's clientIdentity and the server's tls-* settings"
        case .commandTimedOut(let peer, let command):
            "Redis at \(peer) did not answer \(command) within the command timeout; the server is slow or paused"
        case .connectionLost(let peer, let reason):
            "the connection to Redis at \(peer) broke: \(reason)"
        case .protocolViolation(let peer, let reason):
            "Redis at \(peer) sent an unusable reply (\(reason)); the connection was closed"
        case .authenticationFailed(let peer, let code):
            "Redis at \(peer) refused AUTH (\(code)); check the user and password in the URL and the server's ACL"
        case .cannotSelectDatabase(let peer, let message):
            "Redis at \(peer) refused SELECT: \(message); use a database number below the server's `databases` setting and let the ACL user run SELECT"
        case .noConnectionAvailable(let peer, let maxConnections):
            "all \(maxConnections) connections to Redis at \(peer) stayed busy for the command timeout; raise maxConnections"
        case .backingOff(let peer, let retryAfter, let lastFailure):
            "Redis at \(peer) failed recently (\(lastFailure)); not asked again for \(retryAfter)"
        case .invalidTopology(let peer, let reason):
            "the Redis Cluster node at \(peer) described the cluster in a way this client cannot use: \(reason)"
        case .clusterUnreachable(let tried, let lastFailure):
            "none of the \(tried) Redis Cluster nodes tried described the cluster (last: \(lastFailure)); check the seed URLs"
        case .clusterNodeFailed(let reason):
            "\(reason); the keys of its slots are misses until it answers again or the cluster moves them"
        case .slotNotServed(let slot):
            "no Redis Cluster node serves slot \(slot); check CLUSTER SHARDS (a shard without a primary, or a cluster being set up)"
        case .tooManyRedirects(let command, let slot, let limit):
            "the Redis Cluster redirected \(command) for slot \(slot) more than \(limit) times; a slot migration may be half-configured (check CLUSTER SETSLOT on both nodes)"
        case .unroutableCommand(let name):
            "the Redis Cluster client does not know the keys of \(name); add it to RedisCommandKeys"
        case .untrustedNode(let node, let reason):
            "the Redis Cluster node \(node) is not trusted, so nothing was sent there: \(reason)"
        }
    }
}
