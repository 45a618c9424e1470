import Dispatch
import Strata
import StrataConnect

/// The wait both pools (``ConnectionPool``, ``HTTP2Pool``) put a request through when it cannot
/// be served at once: queued until the pool serves it, its deadline passes, or its task is
/// cancelled, whichever comes first; in the last two cases it leaves the queue at once.
enum PoolWait {
    /// Suspends until the waiter queued by `enqueue` is resumed.
    ///
    /// - Parameters:
    ///   - deadline: When the wait gives up with `expired()`.
    ///   - enqueue: Runs once with the caller's continuation and, under the pool's lock, either
    ///     returns the outcome at once or queues the continuation and returns nil. Before queuing
    ///     it returns the failure of `refusal()` when that is not nil: the task was cancelled, or
    ///     the deadline passed (the expiry fired first, or this thread was descheduled past it).
    ///     Either of those found nothing to remove, so a waiter queued now would never leave.
    ///   - remove: Takes the waiter out of the queue; nil when the pool already served it.
    static func wait<Value: Sendable>(
        until deadline: ContinuousClock.Instant,
        expired: @escaping @Sendable () -> TransportError,
        enqueue: (CheckedContinuation<Value, any Error>, _ refusal: () -> (any Error)?)
            -> Result<Value, any Error>?,
        remove: @escaping @Sendable () -> CheckedContinuation<Value, any Error>?
    )
        async throws -> Value
    {
        // Gives up the wait at the deadline; cancelled as soon as the wait ends another way. A
        // dispatch timer, not a sleeping task: on Linux a Task.sleep that was cancelled keeps its
        // timer (about 750 bytes) until its original deadline, so under load every wait that ended
        // early would hold memory for the whole request timeout (strata-soak measured 4 MB more
        // per 10,000 requests, growing for as long as the load lasted). A cancelled dispatch
        // timer is released at once. Far deadlines saturate to "never".
        let expiry = DispatchSource.makeTimerSource(queue: .global())
        let remaining = (deadline - ContinuousClock.now).saturatingNanoseconds
        expiry.schedule(deadline: DispatchTime.now() + .nanoseconds(Int(clamping: remaining)))
        expiry.setEventHandler { remove()?.resume(throwing: expired()) }
        expiry.resume()
        defer { expiry.cancel() }
        let refusal = { () -> (any Error)? in
            if Task.isCancelled { return CancellationError() }
            return ContinuousClock.now >= deadline ? expired() : nil
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                if let immediate = enqueue(continuation, refusal) { continuation.resume(with: immediate) }
            }
        } onCancel: {
            remove()?.resume(throwing: CancellationError())
        }
    }
}
