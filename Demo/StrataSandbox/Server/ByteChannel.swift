#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where one server connection's bytes go: the socket itself (``SocketChannel``), or a session
/// over it (``ServerTLSSession``). Used by one connection thread at a time; every call blocks
/// that thread, never Swift's cooperative pool.
protocol ByteChannel: AnyObject {
    /// Waits for bytes and copies them into `buffer`.
    ///
    /// - Returns: The number of bytes copied; 0 at end of stream, on error, or when the socket's
    ///   read timeout passed.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int

    /// Sends all of `bytes`.
    ///
    /// - Returns: `false` when the peer is gone or the socket's send timeout passed; never
    ///   raises SIGPIPE.
    func send(_ bytes: UnsafeRawBufferPointer) -> Bool
}

/// An accepted socket as a ``ByteChannel``. The connection thread owns the descriptor and
/// closes it; this class only reads and writes.
final class SocketChannel: ByteChannel {
    private let descriptor: Int32

    /// Wraps an accepted socket and bounds how long one read or write may block, so an idle or
    /// stalled client cannot hold its thread forever.
    init(descriptor: Int32, timeout: Duration) {
        self.descriptor = descriptor
        var limit = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        // A response is one or two writes; Nagle would hold the second for the client's delayed ACK.
        var on: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            return max(0, count)
        }
    }

    func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
            let sent = Glibc.send(descriptor, base + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            #else
            let sent = Darwin.send(descriptor, base + offset, bytes.count - offset, 0)
            #endif
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}
