/// Where ``RedisETagStore``'s keys live, as the store sends commands to it: one Redis server
/// (``RedisClient``) or the primaries of a Redis Cluster (`RedisClusterClient`), which share
/// the keyspace by hash slot.
///
/// The store writes each entry under one key, so each batch it sends touches one key, except a
/// keyspace walk (`SCAN`), which it repeats on every server of ``primaries()``.
protocol RedisDeployment: Sendable {
    /// Sends `commands` and returns their replies in order (error replies included, as values):
    /// keyed commands go to the server holding their key; a keyless one such as `SCAN` goes to
    /// `node` (one of ``primaries()``), or to any server when `node` is `nil`.
    ///
    /// - Throws: ``RedisClientError`` when a reply could not be had.
    func send(_ commands: [RedisCommand], keylessOn node: RedisNodeAddress?) async throws(RedisClientError) -> [RESPValue]

    /// The servers that together hold every key: the one server, or each cluster primary.
    ///
    /// - Throws: ``RedisClientError`` when a cluster's topology cannot be learned.
    func primaries() async throws(RedisClientError) -> [RedisNodeAddress]
}

extension RedisDeployment {
    /// Sends `commands`, keyless ones to any server.
    func send(_ commands: [RedisCommand]) async throws(RedisClientError) -> [RESPValue] {
        try await send(commands, keylessOn: nil)
    }
}
