#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Strata
import StrataConnect

/// Lets other threads wake an event loop that waits in `poll` on its socket: a connected pair
/// of non-blocking UNIX sockets, one byte written to wake, all bytes read to reset.
///
/// A socket pair rather than `eventfd` or `pipe2`, which Swift's Glibc module does not expose.
/// Immutable after creation, hence `Sendable`; the descriptors close when it is deallocated.
final class WakeSignal: Sendable {
    private let reader: Int32
    private let writer: Int32

    /// Creates the pair.
    ///
    /// - Throws: `TransportError` ``/Strata/TransportError/Kind/other`` when the process is out of descriptors.
    init() throws(TransportError) {
        var pair: [Int32] = [0, 0]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &pair) == 0 else {
            throw TransportError(.other, message: "cannot create a wake-up socket pair: \(String(cString: strerror(errno)))")
        }
        reader = pair[0]
        writer = pair[1]
    }

    deinit {
        _ = close(reader)
        _ = close(writer)
    }

    /// Wakes the loop (or makes its next wait return at once). Never blocks: when the pair's
    /// buffer is full, a wake-up is pending anyway.
    func signal() {
        var byte: UInt8 = 1
        _ = send(writer, &byte, 1, Int32(MSG_NOSIGNAL))
    }

    /// What a wait found.
    struct Readiness {
        var readable = false
        var writable = false
        var woken = false
    }

    /// Waits until `socket` is readable (or writable, when `writable`), a ``signal()`` arrives, or
    /// `timeout` passes (nil: no timeout). Consumes pending wake-ups.
    func wait(socket: Int32, writable: Bool, timeout: Duration?) -> Readiness {
        var descriptors = [
            pollfd(fd: socket, events: Int16(POLLIN) | (writable ? Int16(POLLOUT) : 0), revents: 0),
            pollfd(fd: reader, events: Int16(POLLIN), revents: 0),
        ]
        let milliseconds = timeout.map { Int32(clamping: max($0.saturatingMillisecondsRoundedUp, 0)) } ?? -1
        let ready = poll(&descriptors, 2, milliseconds)
        guard ready > 0 else { return Readiness() }
        let socketEvents = descriptors[0].revents
        // An error or hang-up counts as readable: the read that follows reports it.
        let failed = socketEvents & (Int16(POLLERR) | Int16(POLLHUP)) != 0
        var readiness = Readiness(
            readable: socketEvents & Int16(POLLIN) != 0 || failed,
            writable: socketEvents & Int16(POLLOUT) != 0,
            woken: descriptors[1].revents != 0)
        if readiness.woken {
            var scratch = [UInt8](repeating: 0, count: 64)
            while recv(reader, &scratch, scratch.count, 0) > 0 {}
        }
        if failed { readiness.writable = readiness.writable || writable }
        return readiness
    }
}
