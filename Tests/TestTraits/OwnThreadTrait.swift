import Foundation
import Testing

/// A trait that runs a test, or every test of a suite, on threads of its own rather than on
/// Swift's cooperative pool.
///
/// For tests that compute for a long time without suspending: fuzz loops, thousands of hostile
/// inputs, megabytes hashed. The cooperative pool has one thread per core (two here), and a test
/// that holds one for a second holds up every other test's continuation for that second: under
/// a full parallel run, tests with deadlines failed while fuzz loops ran. On threads of their own
/// they share the cores through the kernel's scheduler instead.
///
///     @Suite("…", .onOwnThread)
public struct OnOwnThreadTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // The suite's own scope does nothing: each test case gets the executor preference.
        guard testCase != nil else { return try await function() }
        try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) { try await function() }
    }
}

extension Trait where Self == OnOwnThreadTrait {
    /// Runs the test (or every test of the suite) off the cooperative pool: see ``OnOwnThreadTrait``.
    public static var onOwnThread: Self { OnOwnThreadTrait() }
}

/// A task executor that runs every job on a new thread: a CPU-bound test is one long job, and
/// the rare short jobs around its suspensions cost a thread start each, which is nothing beside it.
final class ThreadPerJobExecutor: TaskExecutor {
    static let shared = ThreadPerJobExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        Thread { job.runSynchronously(on: executor) }.start()
    }
}
