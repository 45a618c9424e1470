import Strata

/// A connected, ordered, reliable byte stream that protocols (HTTP/1.1, RESP) run over: a plain TCP socket
/// (``POSIXSocketStream``) or a TLS session on top of one.
///
/// Calls block the calling thread, so they must run on a thread of their own, never on Swift's
/// cooperative pool. One exchange at a time uses a stream; ``close()`` may be called from any
/// thread and makes a blocked call return.
package protocol ByteStream {
    /// Writes every byte of `bytes`.
    ///
    /// - Throws: `TransportError` (``/Strata/TransportError/Kind/connectionLost`` when the peer closed
    ///   or reset, ``/Strata/TransportError/Kind/timedOut`` when no progress was possible before the
    ///   stream's idle timeout or `deadline`).
    func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant) throws(TransportError)

    /// Reads at least one byte into `buffer`, waiting until some arrive.
    ///
    /// - Returns: The number of bytes read, or 0 when the peer closed the stream.
    /// - Throws: `TransportError`: ``/Strata/TransportError/Kind/timedOut`` when nothing arrived within
    ///   the stream's idle timeout or before `deadline`, ``/Strata/TransportError/Kind/connectionLost``
    ///   when the connection was reset.
    func read(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant) throws(TransportError) -> Int

    /// Reads into `buffer` what has already arrived, without waiting, so that a reader can take
    /// everything that is there in one go before handing it on.
    ///
    /// - Returns: The number of bytes read; 0 when the peer closed the stream; `nil` when a read
    ///   would have to wait (or the stream cannot tell without waiting).
    /// - Throws: `TransportError` as ``read(into:deadline:)`` does.
    func readWithoutWaiting(into buffer: UnsafeMutableRawBufferPointer) throws(TransportError) -> Int?

    /// Ends the stream in both directions. Idempotent; later reads see end of stream and later
    /// writes fail with ``/Strata/TransportError/Kind/connectionLost``.
    func close()

    /// Whether the end of stream a read reported was the peer's own, authenticated close (a TLS
    /// close_notify), rather than a bare TCP end anyone on the path can forge. Only meaningful
    /// after a read returned 0.
    var endOfStreamIsAuthenticated: Bool { get }
}

extension ByteStream {
    /// `true`: a stream without a secure layer has no way to authenticate its end.
    package var endOfStreamIsAuthenticated: Bool { true }

    /// `nil`: a stream that cannot tell what has arrived without waiting never says it has.
    package func readWithoutWaiting(into buffer: UnsafeMutableRawBufferPointer) throws(TransportError) -> Int? { nil }
}
