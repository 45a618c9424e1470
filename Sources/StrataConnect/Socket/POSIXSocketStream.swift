#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Strata

/// A plain TCP connection as a ``ByteStream``, built on non-blocking POSIX sockets and
/// `poll`, so every wait has a timeout.
///
/// - Connecting resolves the host name on a helper thread (``BoundedResolution``; an IP literal
///   needs no lookup), then races the addresses as RFC 8305 describes (``RacingConnect``: IPv6
///   and IPv4 interleaved, each attempt given a head start before the next joins it); the
///   connect timeout covers both, resolution included.
/// - Writes use `MSG_NOSIGNAL`: writing to a peer that has gone away returns `EPIPE` (reported
///   as ``/Strata/TransportError/Kind/connectionLost``) instead of raising SIGPIPE, and the process's
///   signal handlers are left alone.
/// - Reads wait with `poll` for at most the idle timeout (and never past the caller's deadline).
/// - `TCP_NODELAY` is set: a request is written in one piece and must not wait for an ACK.
///
/// ``close()`` only shuts the socket down, so a call blocked on another thread returns at once
/// and can never touch a descriptor number the OS has handed out again; the descriptor itself
/// is released when the stream is deallocated. The type is immutable after creation, hence
/// `Sendable` without locks.
package final class POSIXSocketStream: ByteStream, Sendable {
    /// The socket's file descriptor, owned by this stream.
    package let descriptor: Int32
    /// The longest wait for any progress on a read or write.
    package let idleTimeout: Duration
    /// `host:port`, for error messages.
    package let peer: String
    /// The IP address connected to, such as `::1`.
    package let address: String
    /// How many addresses were tried before and including the one connected to.
    package let attempts: Int

    private init(descriptor: Int32, idleTimeout: Duration, peer: String, address: String, attempts: Int) {
        self.descriptor = descriptor
        self.idleTimeout = idleTimeout
        self.peer = peer
        self.address = address
        self.attempts = attempts
    }

    deinit { _ = systemClose(descriptor) }

    /// Opens a TCP connection to `host` and `port`.
    ///
    /// - Parameters:
    ///   - host: A host name or IP literal; an IPv6 literal may keep its URL brackets. A host
    ///     containing a NUL is refused: C would resolve only the part before it.
    ///   - connectTimeout: How long resolving the name and connecting may take in total.
    ///   - idleTimeout: The longest wait for progress on each later read or write.
    ///   - resolver: Resolves a host name (IP literals never reach it).
    ///   - attemptDelay: How long one address is tried alone before the next joins the race.
    /// - Throws: `TransportError` ``/Strata/TransportError/Kind/cannotConnect`` when the host cannot be
    ///   resolved or every address refuses, ``/Strata/TransportError/Kind/timedOut`` when the connect
    ///   timeout runs out (while resolving or connecting).
    package static func connect(
        host: String, port: Int, connectTimeout: Duration, idleTimeout: Duration,
        resolver: any HostNameResolver = SystemHostNameResolver(),
        attemptDelay: Duration = ConnectionRace.defaultAttemptDelay
    ) throws(TransportError) -> POSIXSocketStream {
        let deadline = ContinuousClock.now + connectTimeout
        let addresses = try BoundedResolution.addresses(of: host, port: port, with: resolver, deadline: deadline)
        return try connect(
            to: addresses, peer: "\(host):\(port)", idleTimeout: idleTimeout,
            attemptDelay: attemptDelay, deadline: deadline)
    }

    /// Opens a TCP connection to one of `addresses` (as ``BoundedResolution/addresses(of:port:with:deadline:)``
    /// returned them), racing them as ``RacingConnect`` does, by `deadline`; for a caller that
    /// tells a name that does not resolve apart from a server that does not answer.
    ///
    /// - Throws: `TransportError` ``/Strata/TransportError/Kind/cannotConnect`` when every address
    ///   refuses, ``/Strata/TransportError/Kind/timedOut`` at `deadline`.
    package static func connect(
        to addresses: [SocketAddress], peer: String, idleTimeout: Duration,
        attemptDelay: Duration = ConnectionRace.defaultAttemptDelay,
        deadline: ContinuousClock.Instant
    ) throws(TransportError) -> POSIXSocketStream {
        let winner = try RacingConnect.race(addresses, peer: peer, attemptDelay: attemptDelay, deadline: deadline)
        return POSIXSocketStream(
            descriptor: winner.descriptor, idleTimeout: idleTimeout, peer: peer,
            address: winner.address.presentation, attempts: winner.attempts)
    }

    package func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant) throws(TransportError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let sent = send(descriptor, base + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if sent >= 0 {
                offset += sent
                continue
            }
            let failure = errno
            switch failure {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                try waitForProgress(Int16(POLLOUT), deadline: deadline, doing: "writing the request")
            default:
                throw TransportError(.connectionLost, message: "writing to \(peer) failed: \(Self.errorText(failure))")
            }
        }
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant) throws(TransportError) -> Int {
        guard !buffer.isEmpty else { return 0 }
        while true {
            let received = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if received >= 0 { return received }
            let failure = errno
            switch failure {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                try waitForProgress(Int16(POLLIN), deadline: deadline, doing: "waiting for the response")
            default:
                throw TransportError(.connectionLost, message: "reading from \(peer) failed: \(Self.errorText(failure))")
            }
        }
    }

    /// Waits until the socket has something to read (or an error or hang-up, which the next
    /// read reports), within the idle timeout and the deadline. For a caller that knows a read
    /// now would find nothing, such as one that just sent a request: a `recv` first would only
    /// add a system call that fails with `EAGAIN`.
    package func waitUntilReadable(deadline: ContinuousClock.Instant) throws(TransportError) {
        try waitForProgress(Int16(POLLIN), deadline: deadline, doing: "waiting for the response")
    }

    package func close() {
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }

    // MARK: - Without waiting (for a connection's event loop, which waits in one `poll`)

    /// Sends as much of `bytes` as the socket takes now.
    ///
    /// - Returns: How many bytes were sent; 0 when the socket's send buffer is full.
    /// - Throws: `TransportError` ``/Strata/TransportError/Kind/connectionLost`` when the peer is gone.
    package func sendAvailable(_ bytes: UnsafeRawBufferPointer) throws(TransportError) -> Int {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
        while true {
            let sent = send(descriptor, base, bytes.count, Int32(MSG_NOSIGNAL))
            if sent >= 0 { return sent }
            let failure = errno
            switch failure {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return 0
            default:
                throw TransportError(.connectionLost, message: "writing to \(peer) failed: \(Self.errorText(failure))")
            }
        }
    }

    /// Receives what has arrived.
    ///
    /// - Returns: The number of bytes read, 0 at end of stream, nil when nothing is there yet.
    /// - Throws: `TransportError` ``/Strata/TransportError/Kind/connectionLost`` when the connection was reset.
    package func readWithoutWaiting(into buffer: UnsafeMutableRawBufferPointer) throws(TransportError) -> Int? {
        guard !buffer.isEmpty else { return nil }
        while true {
            let received = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if received >= 0 { return received }
            let failure = errno
            switch failure {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            default:
                throw TransportError(.connectionLost, message: "reading from \(peer) failed: \(Self.errorText(failure))")
            }
        }
    }

    /// Whether a read would return at once, with bytes, end of stream or an error. Between
    /// exchanges on a keep-alive connection any of these means the server closed it or sent
    /// something unasked (such as a `408`), so the connection must not be reused. (Over TLS,
    /// records such as session tickets can also make the socket readable; the TLS layer has to
    /// look at what they are.)
    package var isReadable: Bool {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&request, 1, 0) != 0
    }

    /// Waits for `events` for the idle timeout or until `deadline`, whichever is sooner.
    private func waitForProgress(_ events: Int16, deadline: ContinuousClock.Instant, doing activity: String) throws(TransportError) {
        let untilDeadline = deadline - ContinuousClock.now
        if untilDeadline < idleTimeout {
            try Self.wait(
                descriptor, for: events, timeout: untilDeadline,
                timedOut: "the whole-request deadline passed while \(activity) from \(peer)")
        } else {
            try Self.wait(
                descriptor, for: events, timeout: idleTimeout,
                timedOut: "no progress for \(idleTimeout) (idle timeout) while \(activity) from \(peer)")
        }
    }

    /// Polls until `events` (or an error or hang-up, which the next call reports) or `timeout`.
    private static func wait(
        _ descriptor: Int32, for events: Int16, timeout: Duration,
        timedOut message: String
    ) throws(TransportError) {
        let deadline = ContinuousClock.now + timeout
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw TransportError(.timedOut, message: message) }
            var request = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&request, 1, milliseconds(remaining))
            if ready > 0 { return }
            if ready < 0, errno != EINTR {
                throw TransportError(.connectionLost, message: "poll failed: \(errorText(errno))")
            }
        }
    }

    /// `duration` in whole milliseconds, rounded up so a short wait never becomes a busy poll.
    private static func milliseconds(_ duration: Duration) -> Int32 {
        Int32(clamping: max(duration.saturatingMillisecondsRoundedUp, 0))
    }

    private static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

/// `close(2)`, named apart from ``POSIXSocketStream/close()``.
private func systemClose(_ descriptor: Int32) -> Int32 {
    #if canImport(Glibc)
    Glibc.close(descriptor)
    #else
    Darwin.close(descriptor)
    #endif
}
