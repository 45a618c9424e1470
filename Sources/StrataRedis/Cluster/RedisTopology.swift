import Foundation
import Strata

/// How ``RedisETagStore`` reaches Redis: one server, or a cluster through its seeds.
enum RedisTopology: Sendable {
    /// One server (or a proxy or managed endpoint in front of several): `redis://…`.
    case server(URL)
    /// A Redis Cluster, reached through one or more of its nodes, and only those and the nodes
    /// they name, within `allowedHosts` when given (``RedisNodeAllowList``).
    case cluster(seeds: [URL], allowedHosts: [String]? = nil)

    /// The client for this topology; nothing connects yet.
    ///
    /// - Parameters:
    ///   - tls: The `rediss://` checks (``RedisTLS/connector(_:for:)``).
    ///   - maxConnections: Per server: the server's pool, or each cluster node's.
    ///   - retryDelays, clock: Each cluster node's backoff after it fails (one server's backoff
    ///     is the store's own).
    ///   - nodeRecovered: Called when a cluster node that had failed answers again.
    /// - Throws: ``RedisETagStoreError/invalidURL(_:reason:)``.
    func deployment(
        tls: RedisTLS?, limits: RESPLimits, connectTimeout: Duration, commandTimeout: Duration, maxConnections: Int,
        retryDelays: (initial: Duration, max: Duration), clock: ErasedClock,
        nodeRecovered: @escaping @Sendable (_ missedOperations: Int) -> Void
    )
        throws(RedisETagStoreError) -> any RedisDeployment
    {
        switch self {
        case .server(let url):
            let endpoint = try RedisEndpoint(url: url)
            return RedisClient(
                settings: RedisConnection.Settings(
                    endpoint: endpoint, limits: limits, connectTimeout: connectTimeout,
                    commandTimeout: commandTimeout,
                    tls: try RedisTLS.connector(tls, for: endpoint)),
                maxConnections: maxConnections)
        case .cluster(let seeds, let allowedHosts):
            return try RedisClusterClient(
                seeds: seeds, tls: tls, allowedHosts: allowedHosts, settings: (limits, connectTimeout, commandTimeout),
                maxConnections: maxConnections, retryDelays: retryDelays, clock: clock,
                nodeRecovered: nodeRecovered)
        }
    }
}
