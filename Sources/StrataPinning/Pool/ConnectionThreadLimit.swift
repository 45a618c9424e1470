import Strata

/// How many pooled connections (each with its own thread) may exist at once: one count shared
/// by every `PinningTransport` of the process (``processWide``), so a client that talks to many
/// hosts stays bounded whatever its per-host limit.
///
/// A pool takes one unit before it creates a connection slot and gives it back when the slot
/// leaves the pool (its thread ends right after). A slot whose new connection turns out to be
/// HTTP/2 hands its unit over to that connection instead, which holds it for as long as its
/// thread runs: each unit has one owner at a time, and is never free in between.
final class ConnectionThreadLimit: Sendable {
    /// The default process-wide maximum: far above what one app's pinned hosts need, far below
    /// what makes a process struggle.
    static let defaultMaximum = 256

    /// The count every transport uses unless a test passes its own.
    static let processWide = ConnectionThreadLimit(maximum: defaultMaximum)

    private struct State {
        var maximum: Int
        var inUse = 0
    }

    private let state: LockedValue<State>
    /// Told after a unit was given back, outside the lock.
    private let afterRelease: (@Sendable (ConnectionThreadLimit) -> Void)?

    /// Creates a limit of `maximum` (at least 1).
    ///
    /// - Parameter afterRelease: Told after each ``release()``, outside the lock: lets a test take
    ///   the freed unit exactly as a competing connection would, at the moment it is free.
    init(maximum: Int, afterRelease: (@Sendable (ConnectionThreadLimit) -> Void)? = nil) {
        state = LockedValue(State(maximum: max(1, maximum)))
        self.afterRelease = afterRelease
    }

    /// The most slots allowed at once.
    var maximum: Int { state.withLock { $0.maximum } }

    /// Changes the maximum (at least 1); slots above a lowered maximum stay until they retire.
    func setMaximum(_ maximum: Int) {
        state.withLock { $0.maximum = max(1, maximum) }
    }

    /// How many slots exist now.
    var inUse: Int { state.withLock { $0.inUse } }

    /// Takes one unit; false at the maximum.
    func tryAcquire() -> Bool {
        state.withLock { state in
            guard state.inUse < state.maximum else { return false }
            state.inUse += 1
            return true
        }
    }

    /// Gives one unit back.
    func release() {
        state.withLock { $0.inUse = max(0, $0.inUse - 1) }
        afterRelease?(self)
    }

    /// The failure of a connection to `host:port` that cannot be opened: every unit is in use.
    func exhausted(host: String, port: Int) -> TransportError {
        TransportError(
            .cannotConnect,
            message: "no connection to \(host):\(port) can be opened: all \(maximum) "
                + "connections the process allows are in use (PinningTransport.maxConnectionThreads)")
    }
}
