#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Strata

/// The sockets of a ``ConnectionRace``: non-blocking `connect`s started as the race says, all
/// waited for in one `poll`, the first to connect kept and every other one closed.
package enum RacingConnect {
    /// The connected socket and what it took.
    package struct Winner {
        /// A connected, non-blocking TCP socket (`TCP_NODELAY` set), owned by the caller.
        package let descriptor: Int32
        /// The address it is connected to.
        package let address: SocketAddress
        /// How many attempts were started, the winner's included.
        package let attempts: Int
    }

    /// The most failed attempts named in an error message.
    package static let maximumNamedFailures = 4

    /// Connects to one of `addresses`, racing them as RFC 8305 §5 describes, by `deadline`.
    ///
    /// - Throws: `TransportError` ``/Strata/TransportError/Kind/timedOut`` at `deadline`,
    ///   ``/Strata/TransportError/Kind/cannotConnect`` when every address failed (each failure named).
    package static func race(
        _ addresses: [SocketAddress], peer: String, attemptDelay: Duration,
        deadline: ContinuousClock.Instant
    ) throws(TransportError) -> Winner {
        let ordered = ConnectionRace.ordered(addresses)
        var race = ConnectionRace(count: ordered.count, attemptDelay: attemptDelay)
        var pending: [(index: Int, descriptor: Int32)] = []
        var failures: [String] = []
        let start = ContinuousClock.now
        defer { for attempt in pending { _ = closeDescriptor(attempt.descriptor) } }
        func failed(_ index: Int, _ code: Int32) {
            race.attemptFailed(index, at: ContinuousClock.now - start)
            failures.append("\(ordered[index].presentation) (\(errorText(code)))")
        }
        while true {
            let now = ContinuousClock.now
            switch race.next(at: now - start) {
            case let .start(index):
                switch begin(ordered[index]) {
                case let .connected(descriptor):
                    return Winner(descriptor: descriptor, address: ordered[index], attempts: race.started)
                case let .inProgress(descriptor):
                    pending.append((index, descriptor))
                case let .failed(code):
                    failed(index, code)
                }
            case .exhausted:
                throw TransportError(
                    .cannotConnect,
                    message: "cannot connect to \(peer): "
                        + (failures.isEmpty ? "no address to connect to" : named(failures)))
            case let .wait(until):
                guard now < deadline else {
                    throw TransportError(
                        .timedOut,
                        message: "connecting to \(peer) timed out"
                            + (failures.isEmpty ? "" : " (failed: \(named(failures)))"))
                }
                let wake = until.map { min(start + $0, deadline) } ?? deadline
                var descriptors = pending.map { pollfd(fd: $0.descriptor, events: Int16(POLLOUT), revents: 0) }
                let ready = poll(&descriptors, nfds_t(descriptors.count), milliseconds(wake - now))
                if ready < 0, errno != EINTR {
                    throw TransportError(.cannotConnect, message: "poll failed while connecting to \(peer): \(errorText(errno))")
                }
                guard ready > 0 else { continue }
                // In order, so when several connect in the same instant the preferred address wins.
                var stillPending: [(index: Int, descriptor: Int32)] = []
                var winner: Winner?
                for (attempt, polled) in zip(pending, descriptors) {
                    guard winner == nil, polled.revents != 0 else {
                        stillPending.append(attempt)
                        continue
                    }
                    let code = socketError(attempt.descriptor)
                    if code == 0 {
                        winner = Winner(
                            descriptor: attempt.descriptor, address: ordered[attempt.index],
                            attempts: race.started)
                    } else {
                        _ = closeDescriptor(attempt.descriptor)
                        failed(attempt.index, code)
                    }
                }
                pending = stillPending
                if let winner { return winner }
            }
        }
    }

    private enum Begun {
        case connected(Int32)
        case inProgress(Int32)
        case failed(Int32)
    }

    /// Creates a non-blocking socket for `address` and starts connecting it.
    private static func begin(_ address: SocketAddress) -> Begun {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let descriptor = socket(address.family, type, address.socketProtocol)
        guard descriptor >= 0 else { return .failed(errno) }
        var on: Int32 = 1
        // A request is written in one piece and must not wait for an ACK.
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        var failure: Int32 = EINTR
        while failure == EINTR {
            let result = address.bytes.withUnsafeBytes { raw in
                connect(descriptor, raw.baseAddress?.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            }
            failure = result == 0 ? 0 : errno
        }
        switch failure {
        case 0: return .connected(descriptor)
        case EINPROGRESS, EALREADY: return .inProgress(descriptor)
        default:
            _ = closeDescriptor(descriptor)
            return .failed(failure)
        }
    }

    /// The outcome of a finished non-blocking connect (`SO_ERROR`): 0 when connected.
    private static func socketError(_ descriptor: Int32) -> Int32 {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &length) == 0 ? code : errno
    }

    private static func named(_ failures: [String]) -> String {
        let shown = failures.prefix(maximumNamedFailures).joined(separator: ", ")
        return failures.count > maximumNamedFailures ? "\(shown) and \(failures.count - maximumNamedFailures) more" : shown
    }

    /// `duration` in whole milliseconds, rounded up so a short wait never becomes a busy poll.
    private static func milliseconds(_ duration: Duration) -> Int32 {
        Int32(clamping: max(duration.saturatingMillisecondsRoundedUp, 0))
    }

    private static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    private static func closeDescriptor(_ descriptor: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.close(descriptor)
        #else
        Darwin.close(descriptor)
        #endif
    }
}
