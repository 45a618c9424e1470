import Foundation
import Strata

/// An ``/Strata/ETagStoreProtocol`` store on a Redis server, shared by every instance of a service, so
/// one instance's download of a changed resource lets the others revalidate it with a `304`.
///
/// Use it when a service runs as several instances behind a load balancer: with an
/// `InMemoryETagStore` or a `FileETagStore` each instance downloads each changed resource
/// itself, and an upstream that rate-limits sees the traffic once per instance.
///
/// ```swift
/// let store = try RedisETagStore(url: URL(string: "redis://:secret@cache.internal:6379/2")!,
///                                namespace: "orders-service:etag", timeToLive: .seconds(86_400))
/// let transport = ETagTransport(inner: URLSessionTransport(), store: store)
/// ```
///
/// - **Never fails a request.** Redis down, slow or restarting makes a lookup a miss and a
///   write a no-op, reported as ``RedisETagStoreEvent``. After a failure Redis is left alone
///   for a short, growing delay (100 ms doubling to 5 s), so requests do not each wait for a
///   connect timeout; then one operation probes it and the store recovers.
/// - **Freshness is shared.** Entries carry their exchange times, so a response one instance
///   fetched is fresh for every instance for as long as its `max-age` says: the fleet makes one
///   upstream request per freshness period, not one per instance.
/// - **Entries are checked.** Values use the same versioned, length-prefixed, integrity-checked
///   format as `FileETagStore` files and carry their key's digest, so a torn, planted, foreign or
///   misplaced value is a miss (``RedisETagStoreEvent/unreadableEntry(keyDigest:reason:)``).
/// - **Entries can be authenticated.** The check above is no proof of origin: whoever can write
///   the keyspace can plant an entry with a long `max-age` that every instance serves without a
///   request. Give the fleet `entryAuthenticationKeys` (``RedisEntryAuthenticationKey``) and each
///   entry is signed (HMAC-SHA-256 over the value and its Redis key); a value that is unsigned,
///   changed, moved or signed with another key is a miss, never served
///   (``RedisETagStoreEvent/unauthenticatedEntry(keyDigest:failure:)``).
/// - **No credentials.** Redis keys are `<namespace>:<SHA-256 of the store key>`. Values hold
///   that digest again (never the store key, whose URL may carry a token), the response's URL
///   without userinfo and with secret query values redacted, the values of the fields a `Vary`
///   names (identity and other secret fields as digests), the response's status, headers (no
///   `Set-Cookie`) and body. Credentials never reach Redis, in keys, values or commands; the
///   Redis password is sent only in `AUTH` and never appears in an error or event.
/// - **Bounds.** An entry whose encoded size exceeds `maxEntryBytes` is not stored, and a
///   stored value larger than that is refused while it is read, never buffered. Total memory
///   is Redis's business: set `maxmemory` and `maxmemory-policy allkeys-lru`.
/// - **TTL.** With `timeToLive`, every write sets it and every lookup renews it (`PEXPIRE`,
///   pipelined with the `GET`), so an entry nobody reads for that long expires. With
///   `entryAuthenticationKeys`, a lookup deletes an unsigned or altered value it read (`DEL`), so
///   the renewal never keeps one alive.
/// - **Connections.** At most `maxConnections` connections, opened on demand, authenticated
///   (`AUTH`, with an ACL user when the URL names one) and switched to the URL's database
///   (`SELECT`) as they open; each runs its blocking socket calls on a thread of its own (as
///   a pinned HTTPS connection does), never on Swift's cooperative pool.
/// - **TLS.** A `rediss://` URL connects over TLS with StrataPinning's checks (``RedisTLS``):
///   the chain, the host name and any pins pass before `AUTH` or any command is sent.
public final class RedisETagStore: ETagStoreProtocol {
    /// The namespace used when none is given.
    public static let defaultNamespace = "strata:etag"

    private let client: any RedisDeployment
    private let keyspace: RedisKeyspace
    /// The entry format's authentication key: empty, so the entry's own tag is an integrity
    /// check only; authenticity comes from `entryAuthenticationKeys`, which sign the whole value.
    private static let integrityOnlyKey: [UInt8] = []
    /// Empty: values are not signed. Otherwise writes are signed with the first and reads
    /// verified with whichever signed them (``RedisSignedEntryFormat``).
    private let entryAuthenticationKeys: [RedisEntryAuthenticationKey]
    private let timeToLive: Duration?
    private let maxEntryBytes: Int
    private let availability: LockedValue<RedisAvailability>
    private let clock: ErasedClock

    /// The `SCAN` batch size of ``removeAll()``; Redis's own default is 10.
    private static let scanCount = 512
    /// The most `SCAN` calls one ``removeAll()`` makes (half a billion keys at 512 a call), so a
    /// server that never returns cursor 0 cannot keep it going forever.
    private static let maxScanCalls = 1 << 20
    /// Room for a value's format header, metadata and RESP framing above `maxEntryBytes`.
    private static let replyOverhead = 64 << 10

    /// Creates a store; nothing connects until the first operation.
    ///
    /// - Parameters:
    ///   - url: `redis://[user:password@]host[:port][/db]`: port 6379 and database 0 by default;
    ///     a user name (Redis 6 ACL) needs a password; user and password may be percent-encoded.
    ///     `rediss://` connects over TLS.
    ///   - namespace: The prefix of every key this store writes (`<namespace>:<digest>`); give
    ///     each service its own. 1 to 128 printable ASCII characters without spaces.
    ///   - timeToLive: How long an entry nobody reads or writes stays in Redis; `nil` keeps it
    ///     until Redis evicts it. At least 1 ms.
    ///   - maxEntryBytes: The largest encoded entry stored or read. Default: 8 MiB.
    ///   - maxConnections: The most connections (and blocked threads) the store uses at once.
    ///     Default: 4.
    ///   - connectTimeout: How long resolving the host and connecting may take. Default: 1 s.
    ///   - commandTimeout: How long one exchange with Redis may take, and the longest wait for a
    ///     free connection. Default: 500 ms.
    ///   - tls: For a `rediss://` URL, whom to trust and the client certificate; `nil` trusts
    ///     the system's CAs and presents none. Given with a `redis://` URL, it is an error.
    ///   - entryAuthenticationKeys: The fleet's shared secrets: entries are signed with the
    ///     first, and an entry is served only when one of them verifies it for its Redis key.
    ///     Several keys let a rotation roll out (see ``RedisEntryAuthenticationKey``). Empty (the
    ///     default): entries are not signed, and whoever can write the keyspace is trusted.
    /// Each failure absorbed, refusal and recovery is reported as a ``RedisETagStoreEvent`` to
    /// the observers of the request that caused it.
    /// - Throws: ``RedisETagStoreError`` for a URL, namespace or parameter that cannot work.
    public convenience init(
        url: URL, namespace: String = RedisETagStore.defaultNamespace,
        timeToLive: Duration? = nil, maxEntryBytes: Int = 8 << 20, maxConnections: Int = 4,
        connectTimeout: Duration = .seconds(1), commandTimeout: Duration = .milliseconds(500),
        tls: RedisTLS? = nil, entryAuthenticationKeys: [RedisEntryAuthenticationKey] = []
    ) throws(RedisETagStoreError) {
        try self.init(
            url: url, namespace: namespace, timeToLive: timeToLive, maxEntryBytes: maxEntryBytes,
            maxConnections: maxConnections, connectTimeout: connectTimeout, commandTimeout: commandTimeout,
            retryDelays: (.milliseconds(100), .seconds(5)), clock: ContinuousClock(), tls: tls,
            entryAuthenticationKeys: entryAuthenticationKeys)
    }

    /// Creates a store on a Redis Cluster; nothing connects until the first operation.
    ///
    /// The store learns the cluster's slot map from the first seed that answers (`CLUSTER
    /// SHARDS`, or `CLUSTER SLOTS` before Redis 7), sends each entry's commands to the primary
    /// of its key's slot, follows `MOVED` and `ASK` redirects while slots migrate, and `removeAll()`
    /// scans every primary. A node that fails makes the entries of its slots misses (and their
    /// writes no-ops) until it answers again or the cluster gives its slots to another node; the
    /// other nodes' entries are served as usual, and no request fails.
    ///
    /// - Parameters:
    ///   - cluster: `redis://[user:password@]host[:port]` URLs of one or more cluster nodes (more
    ///     than one, so the store starts while one is down); the same user and password in each,
    ///     database 0 or none. The other nodes are learned from the seeds: the store talks only
    ///     to the seeds and the nodes a seed's topology names, and a redirect elsewhere is a
    ///     miss (``RedisETagStoreEvent/untrustedNode(_:node:reason:)``) that sends nothing there.
    ///     `rediss://` seeds (all of them) reach every node over TLS, for a cluster with
    ///     `tls-cluster yes`.
    ///   - namespace: The prefix of every key this store writes (`<namespace>:<digest>`); give
    ///     each service its own. 1 to 128 printable ASCII characters without spaces. A `{…}` in
    ///     it would put every entry in one slot (a hash tag), so leave braces out.
    ///   - maxConnections: The most connections (and blocked threads) to each node. Default: 4.
    ///   - timeToLive: How long an entry lives in Redis, as for ``init(url:namespace:timeToLive:maxEntryBytes:maxConnections:connectTimeout:commandTimeout:tls:entryAuthenticationKeys:)``.
    ///   - maxEntryBytes: The largest entry stored, as for the single-server store.
    ///   - connectTimeout: How long connecting to one node may take.
    ///   - commandTimeout: How long one node may take to answer a command.
    ///   - tls: For `rediss://` seeds, whom to trust, the client certificate and pins, checked
    ///     on every node as the single-server store checks its server; each node's certificate
    ///     must name the host the cluster announces for it (an IP address by default). `nil`
    ///     trusts the system's CAs. Given with `redis://` seeds, it is an error.
    ///   - allowedHosts: When given, the only hosts any node, seeds included, may have: names
    ///     (`cache.internal`), wildcards (`*.cache.internal`, every name below), IP addresses or
    ///     networks (`10.0.0.0/8`, `fd00::/8`), compared as the cluster announces its nodes,
    ///     never resolved. A node outside is never connected to. `nil`: the trust rule alone.
    ///   - entryAuthenticationKeys: The fleet's shared secrets, as for the single-server store.
    /// - Throws: ``RedisETagStoreError`` for a seed URL, namespace or parameter that cannot work.
    public convenience init(
        cluster: [URL], namespace: String = RedisETagStore.defaultNamespace,
        timeToLive: Duration? = nil, maxEntryBytes: Int = 8 << 20, maxConnections: Int = 4,
        connectTimeout: Duration = .seconds(1), commandTimeout: Duration = .milliseconds(500),
        tls: RedisTLS? = nil, allowedHosts: [String]? = nil,
        entryAuthenticationKeys: [RedisEntryAuthenticationKey] = []
    )
        throws(RedisETagStoreError)
    {
        try self.init(
            topology: .cluster(seeds: cluster, allowedHosts: allowedHosts), namespace: namespace, timeToLive: timeToLive,
            maxEntryBytes: maxEntryBytes, maxConnections: maxConnections, connectTimeout: connectTimeout,
            commandTimeout: commandTimeout, retryDelays: (.milliseconds(100), .seconds(5)), clock: ContinuousClock(),
            tls: tls, entryAuthenticationKeys: entryAuthenticationKeys)
    }

    /// Creates a store with the circuit breaker's delays and clock given, for tests.
    convenience init(
        url: URL, namespace: String, timeToLive: Duration?, maxEntryBytes: Int, maxConnections: Int,
        connectTimeout: Duration, commandTimeout: Duration,
        retryDelays: (initial: Duration, max: Duration), clock: some Clock<Duration>,
        tls: RedisTLS? = nil, entryAuthenticationKeys: [RedisEntryAuthenticationKey] = []
    ) throws(RedisETagStoreError) {
        try self.init(
            topology: .server(url), namespace: namespace, timeToLive: timeToLive, maxEntryBytes: maxEntryBytes,
            maxConnections: maxConnections, connectTimeout: connectTimeout, commandTimeout: commandTimeout,
            retryDelays: retryDelays, clock: clock, tls: tls, entryAuthenticationKeys: entryAuthenticationKeys)
    }

    /// Creates a store on one server or a cluster, with the circuit breakers' delays and clock
    /// given (the store's own for one server, each node's for a cluster).
    init(
        topology: RedisTopology, namespace: String, timeToLive: Duration?, maxEntryBytes: Int, maxConnections: Int,
        connectTimeout: Duration, commandTimeout: Duration,
        retryDelays: (initial: Duration, max: Duration), clock: some Clock<Duration>,
        tls: RedisTLS? = nil, entryAuthenticationKeys: [RedisEntryAuthenticationKey] = []
    ) throws(RedisETagStoreError) {
        keyspace = try RedisKeyspace(namespace: namespace)
        self.entryAuthenticationKeys = entryAuthenticationKeys
        if let timeToLive, timeToLive < .milliseconds(1) {
            throw .invalidParameter("timeToLive", reason: "it must be at least 1 ms, or nil for no expiry")
        }
        guard maxEntryBytes > 0 else { throw .invalidParameter("maxEntryBytes", reason: "it must be positive") }
        guard maxConnections > 0 else { throw .invalidParameter("maxConnections", reason: "it must be at least 1") }
        guard connectTimeout > .zero, commandTimeout > .zero else {
            throw .invalidParameter("connectTimeout/commandTimeout", reason: "timeouts must be positive")
        }
        var limits = RESPLimits()
        limits.maxBulkBytes = maxEntryBytes
        limits.maxReplyBytes = maxEntryBytes + Self.replyOverhead
        client = try topology.deployment(
            tls: tls, limits: limits, connectTimeout: connectTimeout, commandTimeout: commandTimeout,
            maxConnections: maxConnections, retryDelays: retryDelays, clock: ErasedClock(clock),
            nodeRecovered: { missed in TransportEvents.emit(RedisETagStoreEvent.recovered(missedOperations: missed)) })
        self.timeToLive = timeToLive
        self.maxEntryBytes = maxEntryBytes
        availability = LockedValue(RedisAvailability(initialDelay: retryDelays.initial, maxDelay: retryDelays.max))
        self.clock = ErasedClock(clock)
    }

    /// `true`: every instance that uses the same Redis and namespace reads what one stored, so
    /// `ETagTransport` follows RFC 9111 §3.5 and §5.2.2.7 here: a response to a request with
    /// `Authorization` is served without the origin only when it says `public`, `s-maxage` or
    /// `must-revalidate`, and a `private` one never; otherwise they serve as validators (the
    /// origin checks the credential of every request).
    public var isSharedStorage: Bool { true }

    /// Returns the entry stored under `key`, or `nil` when there is none, it is unreadable, it
    /// is not authentic (with `entryAuthenticationKeys`), or Redis is unavailable. With a
    /// `timeToLive`, renews the entry's expiry in the same round trip. A value that is unsigned
    /// or whose signature does not match is deleted (see
    /// ``RedisETagStoreEvent/AuthenticationFailure``).
    public func cachedResponse(for key: String) async -> ETagCacheEntry? {
        let redisKey = keyspace.redisKey(for: key)
        var commands = [RedisCommand("GET", RedisArgument(redisKey))]
        if let timeToLive {
            commands.append(RedisCommand("PEXPIRE", RedisArgument(redisKey), RedisArgument(timeToLive.wholeMilliseconds)))
        }
        guard let replies = await send(commands, for: .lookup) else { return nil }
        switch replies[0] {
        case .bulkString(nil):
            return nil
        case .bulkString(let value?):
            var entry = Data(value)
            if !entryAuthenticationKeys.isEmpty {
                // Before anything in the value is parsed or trusted: an unauthentic value is never served.
                do throws(RedisSignedEntryFormat.Failure) {
                    entry = try RedisSignedEntryFormat.verified(entry, redisKey: redisKey, keys: entryAuthenticationKeys)
                } catch {
                    switch error {
                    case .unauthenticated(let failure):
                        report(.unauthenticatedEntry(keyDigest: keyspace.keyDigest(of: key), failure: failure))
                        await discardUnauthenticated(redisKey, failure)
                    case .unavailable(let reason): report(.failed(.lookup, reason: reason.description))
                    }
                    return nil
                }
            }
            do throws(ETagEntryFileError) {
                return try ETagEntryFileFormat.decode(entry, for: key, authenticationKey: Self.integrityOnlyKey)
            } catch {
                report(.unreadableEntry(keyDigest: keyspace.keyDigest(of: key), reason: error.description))
                return nil
            }
        case let reply:
            report(.failed(.lookup, reason: Self.unexpected(reply, to: "GET")))
            return nil
        }
    }

    /// Deletes a value that no key of the store could have signed, so it does not outlive this
    /// lookup: the `PEXPIRE` pipelined with the `GET` has just renewed it, and when the origin's
    /// response cannot be stored (too large, `no-store`, an error) nothing would overwrite it, so
    /// it would warn at every lookup for as long as it is read.
    ///
    /// A value signed with a key the store does not hold is left alone: it may be a rotation's
    /// new key that has not reached this instance yet, and deleting it would make the instances
    /// that do hold it download it again. Best effort: a failed `DEL` is reported like any other,
    /// and a signed entry another instance writes between the `GET` and the `DEL` is deleted too
    /// (one more download, never a wrong answer).
    private func discardUnauthenticated(
        _ redisKey: String, _ failure: RedisETagStoreEvent.AuthenticationFailure
    ) async {
        switch failure {
        case .unsigned, .tagMismatch:
            _ = await send([RedisCommand("DEL", RedisArgument(redisKey))], for: .remove)
        case .unknownKey:
            return
        }
    }

    /// Whether Redis holds a value under `key` (`EXISTS`), without reading it (so without
    /// checking it: ``cachedResponse(for:)`` decides what is served); `false` when Redis is
    /// unavailable.
    public func containsEntry(for key: String) async -> Bool {
        guard
            let replies = await send(
                [RedisCommand("EXISTS", RedisArgument(keyspace.redisKey(for: key)))],
                for: .contains)
        else { return false }
        return replies[0] == .integer(1)
    }

    /// Stores `entry` under `key` (`SET`, with `PX` when there is a `timeToLive`), replacing any
    /// earlier entry, written by this instance or another. An entry too large is not stored and
    /// the older one is removed, as it is outdated. With `entryAuthenticationKeys`, the value is
    /// signed with the first key.
    public func store(_ entry: ETagCacheEntry, for key: String) async {
        let redisKey = keyspace.redisKey(for: key)
        var value: Data
        do {
            value = try ETagEntryFileFormat.encode(key: key, entry: entry, authenticationKey: Self.integrityOnlyKey)
            if let signingKey = entryAuthenticationKeys.first {
                value = try RedisSignedEntryFormat.sign(value, redisKey: redisKey, key: signingKey)
            }
        } catch {
            report(.failed(.store, reason: "the entry cannot be encoded: \(error)"))
            return await remove(for: key)
        }
        guard value.count <= maxEntryBytes else {
            report(.rejectedTooLarge(keyDigest: keyspace.keyDigest(of: key), bytes: value.count, limit: maxEntryBytes))
            return await remove(for: key)
        }
        var arguments = [RedisArgument(redisKey), RedisArgument(value)]
        if let timeToLive { arguments += [RedisArgument("PX"), RedisArgument(timeToLive.wholeMilliseconds)] }
        _ = await send([RedisCommand("SET", arguments: arguments)], for: .store)
    }

    /// Removes the entry stored under `key`, for every instance.
    public func remove(for key: String) async {
        _ = await send([RedisCommand("DEL", RedisArgument(keyspace.redisKey(for: key)))], for: .remove)
    }

    /// Removes every entry in this store's namespace, for every instance: `SCAN` in batches
    /// (on every primary of a cluster), each batch's `UNLINK` pipelined with the next `SCAN`, so
    /// Redis is never blocked the way `KEYS` would block it. Keys of other namespaces are left alone.
    public func removeAll() async {
        let primaries: [RedisNodeAddress]
        do {
            primaries = try await client.primaries()
        } catch {
            return report(.failed(.removeAll, reason: error.description))
        }
        for node in primaries { await removeAll(on: node) }
    }

    /// ``removeAll()`` on one server.
    private func removeAll(on node: RedisNodeAddress) async {
        var cursor: [UInt8] = Array("0".utf8)
        var found: [RedisArgument] = []
        var calls = 0
        repeat {
            calls += 1
            var commands: [RedisCommand] = []
            if !found.isEmpty { commands.append(RedisCommand("UNLINK", arguments: found)) }
            commands.append(
                RedisCommand(
                    "SCAN", RedisArgument(bytes: cursor), RedisArgument("MATCH"),
                    RedisArgument(keyspace.scanPattern), RedisArgument("COUNT"),
                    RedisArgument(Self.scanCount)))
            guard let replies = await send(commands, keylessOn: node, for: .removeAll) else { return }
            guard case .array(let scan?) = replies.last, scan.count == 2,
                case .bulkString(let next?) = scan[0], case .array(let keys?) = scan[1]
            else {
                return report(.failed(.removeAll, reason: Self.unexpected(replies.last ?? .array(nil), to: "SCAN")))
            }
            cursor = next
            found = keys.compactMap { if case .bulkString(let key?) = $0 { RedisArgument(bytes: key) } else { nil } }
        } while cursor != Array("0".utf8) && calls < Self.maxScanCalls
        if !found.isEmpty { _ = await send([RedisCommand("UNLINK", arguments: found)], for: .removeAll) }
    }

    /// Sends `commands` unless the circuit is open, and returns their replies when Redis
    /// answered every one without an error; otherwise reports why and returns `nil`.
    private func send(
        _ commands: [RedisCommand], keylessOn node: RedisNodeAddress? = nil,
        for operation: RedisETagStoreEvent.Operation
    ) async -> [RESPValue]? {
        if case .skip(let retryAfter, _) = availability.withLock({ $0.admit(at: clock.elapsed()) }) {
            report(.skipped(operation, retryAfter: retryAfter))
            return nil
        }
        let replies: [RESPValue]
        do {
            replies = try await client.send(commands, keylessOn: node)
        } catch {
            availability.withLock { state in
                if error.marksServerUnavailable {
                    state.recordFailure(at: clock.elapsed(), reason: error.description)
                } else {
                    state.recordInconclusive()
                }
            }
            // A cluster node that failed recently is left alone by the cluster client.
            if case .backingOff(_, let retryAfter, _) = error {
                report(.skipped(operation, retryAfter: retryAfter))
            } else if case .untrustedNode(let node, let reason) = error {
                report(.untrustedNode(operation, node: node, reason: reason))
            } else {
                report(.failed(operation, reason: error.description))
            }
            return nil
        }
        if let missed = availability.withLock({ $0.recordSuccess() }) { report(.recovered(missedOperations: missed)) }
        if let (command, reply) = zip(commands, replies).first(where: { $0.1.errorCode != nil }) {
            report(.failed(operation, reason: Self.unexpected(reply, to: command.name)))
            return nil
        }
        return replies
    }

    /// The store's one way of reporting: builds the event only when someone observes.
    private func report(_ event: @autoclosure () -> RedisETagStoreEvent) {
        TransportEvents.emit(event())
    }

    /// A reason for a reply the store cannot use. An error reply's text is cut short: it names
    /// the problem (`OOM`, `READONLY`, `NOPERM`) in its first words.
    private static func unexpected(_ reply: RESPValue, to command: String) -> String {
        if case .error(let message) = reply { return "Redis answered \(command) with \(message.prefix(160))" }
        return "Redis answered \(command) with an unexpected reply"
    }
}
