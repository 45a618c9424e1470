/// A small Redis client: RESP2 over TCP, a bounded pool of connections, pipelined batches,
/// `AUTH` (with an ACL user) and `SELECT` on every new connection, connect and command
/// timeouts, and new connections after the server restarts.
///
/// It does what ``RedisETagStore`` needs and no more: no pub/sub; a cluster is
/// `RedisClusterClient`, which keeps one of these per node. Every
/// blocking call runs on a pool lane's own thread, so `send` suspends its task and never blocks
/// a cooperative thread. It does not watch task cancellation: a batch takes at most the
/// connect timeout plus the command timeout (twice when a dead kept connection is replaced),
/// and its connection would be unusable if abandoned halfway.
final class RedisClient: Sendable {
    /// Where the client connects, for error messages: `host:port/db`.
    let peer: String
    /// The server's host and port.
    let address: RedisNodeAddress
    private let pool: RedisConnectionPool
    private let commandTimeout: Duration

    /// Creates a client; nothing connects before the first ``send(_:)``.
    init(settings: RedisConnection.Settings, maxConnections: Int) {
        peer = settings.endpoint.description
        address = RedisNodeAddress(endpoint: settings.endpoint)
        commandTimeout = settings.commandTimeout
        pool = RedisConnectionPool(maxConnections: maxConnections) { RedisConnectionSlot(index: $0, settings: settings, retire: $1) }
    }

    /// Sends `commands` as one pipelined batch on one connection and returns their replies in
    /// order (error replies included, as values).
    ///
    /// - Throws: ``RedisClientError`` when no connection was free within the command timeout,
    ///   or the batch did not complete.
    func send(_ commands: [RedisCommand]) async throws(RedisClientError) -> [RESPValue] {
        guard let slot = await pool.acquire(timeout: commandTimeout) else {
            throw .noConnectionAvailable(peer: peer, maxConnections: pool.maxConnections)
        }
        let result = await slot.send(commands)
        pool.release(slot)
        return try result.get()
    }
}

extension RedisClient: RedisDeployment {
    /// Sends every command to the one server.
    func send(_ commands: [RedisCommand], keylessOn node: RedisNodeAddress?) async throws(RedisClientError) -> [RESPValue] {
        try await send(commands)
    }

    /// The one server.
    func primaries() async throws(RedisClientError) -> [RedisNodeAddress] { [address] }
}
