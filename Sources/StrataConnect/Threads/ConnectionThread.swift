import Dispatch
import Foundation
import Strata

/// The dedicated thread of one pooled connection: it runs that connection's blocking work
/// (connect, handshake, exchanges), one job at a time, so no socket or TLS call ever occupies a
/// thread of Swift's cooperative pool.
///
/// A thread per connection costs one wake-up per request (no queue shared between connections,
/// so a slow server never delays another host) and the pool's per-host limit bounds how many
/// exist. When no job arrives for `idleTimeout`, the thread asks `onIdle` whether it may end;
/// the pool says yes when it could take the connection out of its idle list.
package final class ConnectionThread: Sendable {
    private struct State {
        var job: (@Sendable () -> Void)?
        var stopping = false
    }

    private let state = LockedValue(State())
    private let wake = DispatchSemaphore(value: 0)

    /// Creates a thread that does not run yet (``start(name:idleTimeout:onIdle:)`` starts it).
    package init() {}

    /// Starts the thread.
    ///
    /// - Parameters:
    ///   - name: The thread's name, for debuggers.
    ///   - idleTimeout: How long to wait for a job before asking `onIdle`.
    ///   - onIdle: Returns true when the thread should end; called on the thread.
    package func start(name: String, idleTimeout: Duration, onIdle: @escaping @Sendable () -> Bool) {
        let thread = Thread { [self] in run(idleTimeout: idleTimeout, onIdle: onIdle) }
        thread.name = name
        thread.start()
    }

    /// Runs `job` on the thread. The caller holds the connection's lease, so the thread is idle.
    package func submit(_ job: @escaping @Sendable () -> Void) {
        state.withLock { $0.job = job }
        wake.signal()
    }

    /// Ends the thread after its current job, if any.
    package func stop() {
        state.withLock { $0.stopping = true }
        wake.signal()
    }

    private func run(idleTimeout: Duration, onIdle: @Sendable () -> Bool) {
        let nanoseconds = idleTimeout.saturatingNanoseconds
        while true {
            if wake.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds))) == .timedOut {
                if onIdle() { return }
                continue
            }
            let next = state.withLock { state -> (job: (@Sendable () -> Void)?, stop: Bool) in
                defer { state.job = nil }
                return (state.job, state.stopping)
            }
            if let job = next.job { job() }
            if next.stop { return }
        }
    }
}
