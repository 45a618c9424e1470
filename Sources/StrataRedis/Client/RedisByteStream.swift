import StrataConnect
import StrataPinning

/// What a ``RedisConnection`` runs over: a TCP socket (`POSIXSocketStream`) or a verified TLS
/// session on one (`VerifiedTLSStream`), as StrataConnect's blocking `ByteStream` with one more
/// question the pool asks.
protocol RedisByteStream: ByteStream, Sendable {
    /// Whether the idle stream is still open with nothing unasked waiting. Between commands a
    /// Redis connection has nothing to say, so a readable idle stream was closed by the server
    /// (a restart, `timeout`, `CLIENT KILL`) and must not be used.
    var isIdleAndOpen: Bool { get }
}

extension POSIXSocketStream: RedisByteStream {
    var isIdleAndOpen: Bool { !isReadable }
}

extension VerifiedTLSStream: RedisByteStream {}
