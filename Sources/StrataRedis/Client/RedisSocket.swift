#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP connection to a Redis server on a non-blocking socket: every wait is a `poll(2)`
/// bounded by the caller's deadline, so a server that stops answering costs at most the
/// timeout, never a hung thread.
///
/// Writes use `MSG_NOSIGNAL`, so a server that went away is an `EPIPE` error instead of a
/// SIGPIPE that would end the process. `TCP_NODELAY` is set: a pipelined batch is written in
/// one piece and must not wait for the previous segment's ACK. The descriptor is closed in
/// `deinit`; ``shutDown()`` only wakes a thread blocked on it. Immutable, hence `Sendable`.
final class RedisSocket: Sendable {
    /// Why a read or write did not complete.
    enum Failure: Error {
        /// The deadline passed first.
        case timedOut
        /// The socket reported an error; carries `strerror`'s text.
        case broken(String)
    }

    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { _ = close(descriptor) }

    /// Connects to the first of `addresses` that accepts before `deadline`.
    ///
    /// - Throws: ``RedisClientError/cannotConnect(peer:reason:)`` when every address refuses,
    ///   ``RedisClientError/connectTimedOut(peer:)`` when the deadline passes.
    static func open(to addresses: [RedisAddressResolver.Address], peer: String,
                        deadline: ContinuousClock.Instant) throws(RedisClientError) -> RedisSocket {
        var lastReason = "no address"
        for address in addresses {
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
            let descriptor = socket(address.family, type, Int32(IPPROTO_TCP))
            guard descriptor >= 0 else { throw .cannotConnect(peer: peer, reason: errorText(errno)) }
            let socket = RedisSocket(descriptor: descriptor)
            do throws(Failure) {
                try socket.finishConnecting(to: address, deadline: deadline)
                return socket
            } catch {
                guard case .broken(let reason) = error else { throw .connectTimedOut(peer: peer) }
                lastReason = reason
            }
        }
        throw .cannotConnect(peer: peer, reason: lastReason)
    }

    private func finishConnecting(to address: RedisAddressResolver.Address,
                                  deadline: ContinuousClock.Instant) throws(Failure) {
        var storage = address.storage
        var result: Int32
        repeat {
            result = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, address.length) }
            }
        } while result != 0 && errno == EINTR
        if result != 0 {
            guard errno == EINPROGRESS else { throw .broken(Self.errorText(errno)) }
            try wait(for: Int16(POLLOUT), until: deadline)
            var pending: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &pending, &length) == 0 else {
                throw .broken(Self.errorText(errno))
            }
            guard pending == 0 else { throw .broken(Self.errorText(pending)) }
        }
        var on: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Writes all of `bytes` before `deadline`.
    func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { buffer in
                send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent >= 0 {
                offset += sent
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                try wait(for: Int16(POLLOUT), until: deadline)
            } else if errno != EINTR {
                throw .broken(Self.errorText(errno))
            }
        }
    }

    /// Reads what has arrived into the start of `buffer`, up to its size, waiting until
    /// `deadline` for the first byte. Returns 0 when the server closed the connection.
    func read(into buffer: inout [UInt8], deadline: ContinuousClock.Instant) throws(Failure) -> Int {
        while true {
            let received = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if received >= 0 { return received }
            if errno == EAGAIN || errno == EWOULDBLOCK {
                try wait(for: Int16(POLLIN), until: deadline)
            } else if errno != EINTR {
                throw .broken(Self.errorText(errno))
            }
        }
    }

    /// Whether a read would return at once. Between commands a Redis connection has nothing
    /// to say, so a readable idle connection was closed by the server (a restart, `timeout`,
    /// `CLIENT KILL`) and must not be used.
    var isReadable: Bool {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&request, 1, 0) != 0
    }

    /// Shuts the connection down in both directions; the descriptor stays allocated until
    /// `deinit`, so its number cannot be reused under a thread still holding it.
    func shutDown() {
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }

    private func wait(for events: Int16, until deadline: ContinuousClock.Instant) throws(Failure) {
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw .timedOut }
            var request = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&request, 1, Int32(clamping: remaining.wholeMilliseconds))
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw .broken(Self.errorText(errno)) }
        }
    }

    private static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }
}
