import Dispatch
import Foundation

/// Runs memory-measuring suites in a child of the test process, where nothing else runs beside
/// them: the resident set is the whole process's, and in the parallel suite other tests (64
/// concurrent 1 MB bodies, say) would be counted as the transfer's.
///
/// A measuring suite is `.enabled(if: MeasuringProcess.isMeasuring)`; a test in the parent runs it
/// with ``run(filter:)`` and checks the child's exit status.
public enum MeasuringProcess {
    /// Set in the environment of the child that measures.
    public static let variable = "STRATA_MEASURES_MEMORY"

    /// Whether this process is a child started to measure.
    public static var isMeasuring: Bool { ProcessInfo.processInfo.environment[variable] == "1" }

    /// Runs the tests matching `filter` in a child of this test binary (Swift Testing), waiting on
    /// a thread of its own, never one of Swift's cooperative threads.
    ///
    /// - Returns: The child's exit status and everything it printed.
    public static func run(filter: String) async throws -> (status: Int32, output: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(
                    with: Result {
                        let child = Process()
                        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
                        child.arguments = ["--testing-library", "swift-testing", "--filter", filter]
                        var environment = ProcessInfo.processInfo.environment
                        environment[variable] = "1"
                        child.environment = environment
                        let pipe = Pipe()
                        child.standardOutput = pipe
                        child.standardError = pipe
                        try child.run()
                        let output = pipe.fileHandleForReading.readDataToEndOfFile()
                        child.waitForExit()
                        return (child.terminationStatus, String(decoding: output, as: UTF8.self))
                    })
            }.start()
        }
    }
}
