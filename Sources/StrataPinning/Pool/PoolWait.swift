import Strata

/// The wait both pools (``ConnectionPool``, ``HTTP2Pool``) put a request through when it cannot
/// be served at once: queued until the pool serves it, its deadline passes, or its task is
/// cancelled, whichever comes first; in the last two cases it leaves the queue at once.
enum PoolWait {
    /// Suspends until the waiter queued by `enqueue` is resumed.
    ///
    /// - Parameters:
    ///   - deadline: When the wait gives up with `expired()`.
    ///   - enqueue: Runs once with the caller's continuation and, under the pool's lock, either
    ///     returns the outcome at once or queues the continuation and returns nil. It must check
    ///     `Task.isCancelled` before queuing (a cancellation that came first found nothing to remove).
    ///   - remove: Takes the waiter out of the queue; nil when the pool already served it.
    static func wait<Value: Sendable>(until deadline: ContinuousClock.Instant,
                                      expired: @escaping @Sendable () -> TransportError,
                                      enqueue: (CheckedContinuation<Value, any Error>) -> Result<Value, any Error>?,
                                      remove: @escaping @Sendable () -> CheckedContinuation<Value, any Error>?)
        async throws -> Value {
        // Gives up the wait at the deadline; cancelled as soon as the wait ends another way.
        let expiry = Task {
            // In steps of at most a day: the runtime's sleep overflows on far deadlines (a
            // configured `.seconds(.max)`), which would end the wait at once instead of never.
            while ContinuousClock.now < deadline {
                try await Task.sleep(until: min(deadline, .now + .seconds(86_400)), clock: .continuous)
            }
            remove()?.resume(throwing: expired())
        }
        defer { expiry.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                if let immediate = enqueue(continuation) { continuation.resume(with: immediate) }
            }
        } onCancel: {
            remove()?.resume(throwing: CancellationError())
        }
    }
}
