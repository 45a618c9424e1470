import Strata
import StrataConnect
import StrataPinning

/// One open, authenticated connection to a Redis server that sends pipelined commands and
/// reads their replies, blocking the calling thread (always a pool slot's own thread, never
/// the cooperative pool) for at most the deadline it is given.
///
/// After any thrown error the connection's state is unknown (a reply may be half read) and it
/// must be dropped. Immutable, hence `Sendable`; it is used by one slot at a time.
final class RedisConnection: Sendable {
    /// How to reach the server and how long to wait for it.
    struct Settings: Sendable {
        /// The server, credentials and database.
        var endpoint: RedisEndpoint
        /// Limits on the replies read.
        var limits: RESPLimits
        /// How long name resolution plus `connect` may take.
        var connectTimeout: Duration
        /// How long one pipelined batch (writing it and reading every reply) may take; the
        /// `AUTH`/`SELECT` handshake gets the same.
        var commandTimeout: Duration
        /// The TLS checks for a `rediss://` endpoint; `nil` for plain TCP.
        var tls: VerifiedTLSConnector? = nil
    }

    private let stream: any RedisByteStream
    private let peer: String
    private let limits: RESPLimits
    /// The size of each `recv`: a 4 KB entry arrives in one read, a 1 MB one in 16.
    private static let readChunkBytes = 64 << 10

    private init(stream: any RedisByteStream, peer: String, limits: RESPLimits) {
        self.stream = stream
        self.peer = peer
        self.limits = limits
    }

    /// Connects, then authenticates and selects the database in one round trip.
    ///
    /// - Throws: ``RedisClientError`` naming the step that failed; never the password.
    static func open(_ settings: Settings) throws(RedisClientError) -> RedisConnection {
        let endpoint = settings.endpoint
        let peer = endpoint.description
        let connectDeadline = ContinuousClock.now + settings.connectTimeout
        let stream = try connect(endpoint, peer: peer, settings: settings, deadline: connectDeadline)
        let connection = RedisConnection(stream: stream, peer: peer, limits: settings.limits)
        var handshake: [RedisCommand] = []
        if let password = endpoint.password {
            // Redis 6 ACL users authenticate with two arguments; the one-argument form is the
            // `default` user (and all Redis 5 knows).
            handshake.append(
                endpoint.user.map { RedisCommand("AUTH", RedisArgument($0), RedisArgument(password.value)) }
                    ?? RedisCommand("AUTH", RedisArgument(password.value)))
        }
        if endpoint.database != 0 { handshake.append(RedisCommand("SELECT", RedisArgument(endpoint.database))) }
        guard !handshake.isEmpty else { return connection }
        let replies = try connection.execute(handshake, deadline: ContinuousClock.now + settings.commandTimeout)
        for (command, reply) in zip(handshake, replies) {
            guard case .error(let message) = reply else { continue }
            if command.name == "AUTH" { throw .authenticationFailed(peer: peer, code: reply.errorCode ?? "ERR") }
            // A refused AUTH makes SELECT fail with NOAUTH too; that is reported above.
            throw .cannotSelectDatabase(peer: peer, message: message)
        }
        return connection
    }

    /// Resolves the host (on a thread of its own, an IP literal without a lookup) and connects
    /// to the first address that answers, racing them as RFC 8305 says, all by `deadline`.
    private static func connect(
        _ endpoint: RedisEndpoint, peer: String, settings: Settings,
        deadline: ContinuousClock.Instant
    ) throws(RedisClientError) -> any RedisByteStream {
        if let tls = settings.tls { return try connectTLS(endpoint, peer: peer, tls: tls, settings: settings, deadline: deadline) }
        let addresses: [SocketAddress]
        do {
            addresses = try BoundedResolution.addresses(
                of: endpoint.host, port: endpoint.port,
                with: SystemHostNameResolver(), deadline: deadline)
        } catch {
            throw error.kind == .timedOut ? .connectTimedOut(peer: peer) : .cannotResolve(peer: peer, reason: error.message)
        }
        do {
            // The command deadline, not an idle timeout, bounds every later read and write.
            return try POSIXSocketStream.connect(
                to: addresses, peer: "\(endpoint.host):\(endpoint.port)",
                idleTimeout: settings.commandTimeout, deadline: deadline)
        } catch {
            throw error.kind == .timedOut ? .connectTimedOut(peer: peer) : .cannotConnect(peer: peer, reason: error.message)
        }
    }

    /// Connects and completes a TLS handshake whose chain, host name and pins passed, the
    /// handshake within the connect deadline too.
    private static func connectTLS(
        _ endpoint: RedisEndpoint, peer: String, tls: VerifiedTLSConnector, settings: Settings,
        deadline: ContinuousClock.Instant
    ) throws(RedisClientError) -> any RedisByteStream {
        do {
            return try tls.connect(
                host: endpoint.host, port: endpoint.port,
                timeouts: (settings.connectTimeout, settings.connectTimeout, settings.commandTimeout),
                deadline: deadline)
        } catch let refused as ServerTrustError {
            throw .untrustedServer(peer: peer, reason: refused.description)
        } catch let error as TransportError {
            switch error.kind {
            case .timedOut: throw .connectTimedOut(peer: peer)
            case .tls: throw tlsFailure(error, peer: peer)
            default: throw .cannotConnect(peer: peer, reason: error.message)
            }
        } catch {
            throw .tlsFailed(peer: peer, reason: String(describing: error))
        }
    }

    /// Sends `commands` in one write and returns their replies in order; error replies are
    /// returned as ``RESPValue/error(_:)`` values, not thrown.
    ///
    /// - Throws: ``RedisClientError/commandTimedOut(peer:command:)`` when `deadline` passes,
    ///   ``RedisClientError/connectionLost(peer:reason:)`` when the socket breaks or closes,
    ///   ``RedisClientError/protocolViolation(peer:reason:)`` for bytes that are not replies.
    func execute(_ commands: [RedisCommand], deadline: ContinuousClock.Instant) throws(RedisClientError) -> [RESPValue] {
        let names = commands.map(\.name).joined(separator: "+")
        var request: [UInt8] = []
        for command in commands { command.encode(into: &request) }
        let written = request.withUnsafeBytes { bytes in
            Result { () throws(TransportError) in try stream.write(bytes, deadline: deadline) }
        }
        if case .failure(let error) = written { throw failure(error, during: names) }
        var parser = RESPParser(limits: limits)
        var replies: [RESPValue] = []
        var chunk = [UInt8](repeating: 0, count: Self.readChunkBytes)
        while true {
            do {
                while replies.count < commands.count, let reply = try parser.next() { replies.append(reply) }
            } catch {
                stream.close()
                throw .protocolViolation(peer: peer, reason: error.description)
            }
            if replies.count == commands.count { break }
            let read = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(TransportError) in try stream.read(into: buffer, deadline: deadline) }
            }
            let received: Int
            switch read {
            case .success(let count): received = count
            case .failure(let error): throw failure(error, during: names)
            }
            guard received > 0 else { throw .connectionLost(peer: peer, reason: "the server closed the connection") }
            parser.append(chunk[0..<received])
        }
        guard !parser.hasPartialReply else {
            stream.close()
            throw .protocolViolation(peer: peer, reason: "the server sent more than the replies to \(names)")
        }
        return replies
    }

    /// Whether the server closed this idle connection (or sent something unasked).
    var isStale: Bool { !stream.isIdleAndOpen }

    private func failure(_ error: TransportError, during names: String) -> RedisClientError {
        stream.close()
        switch error.kind {
        case .timedOut: return .commandTimedOut(peer: peer, command: names)
        // TLS 1.3 servers refuse a client certificate after the client's handshake ended: the
        // alert arrives with the first reply.
        case .tls: return Self.tlsFailure(error, peer: peer)
        default: return .connectionLost(peer: peer, reason: error.message)
        }
    }

    /// A TLS failure in Redis's words: a refused client certificate names ``RedisTLS``'s
    /// setting, not PinningTransport's.
    private static func tlsFailure(_ error: TransportError, peer: String) -> RedisClientError {
        switch error.underlying as? ClientAuthenticationError {
        case .certificateRequired?:
            .tlsFailed(peer: peer, reason: "the server requires a client certificate (tls-auth-clients); set RedisTLS.clientIdentity")
        case .certificateRefused(_, let subject, let alert)?:
            .tlsFailed(
                peer: peer,
                reason: "the server refused the client certificate \(subject) (TLS alert \(alert)); "
                    + "it must be issued by the server's tls-ca-cert-file CA and allow client authentication")
        case nil:
            .tlsFailed(peer: peer, reason: error.message)
        }
    }
}
