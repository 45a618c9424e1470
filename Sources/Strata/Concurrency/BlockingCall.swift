import Dispatch

/// Where blocking system calls (the file system's `open`, `write`, `fsync`, `rename`) run: on a
/// Dispatch thread, never on one of Swift's cooperative threads, which a blocked call would take
/// from every other task: no layer blocks one.
package enum BlockingCall {
    /// Runs `work` on a Dispatch thread and returns what it returns, or throws what it throws.
    package static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result(catching: work)) }
        }
    }

    /// Runs `work` on a Dispatch thread and returns what it returns.
    package static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }
}
