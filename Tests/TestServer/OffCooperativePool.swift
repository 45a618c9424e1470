import Foundation

/// Runs blocking `work` on a thread of its own and resumes the caller with its result, so the
/// caller's cooperative thread never blocks (starting a server process, a long CPU-bound loop).
public func offCooperativePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result(catching: work)) }.start()
    }
}

/// Runs blocking `work` on a thread of its own; the non-throwing form.
public func offCooperativePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}
