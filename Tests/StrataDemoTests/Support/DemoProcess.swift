import Foundation
import Strata
#if canImport(Glibc)
import Glibc
import TestSupport
#endif

/// Runs the built `strata-demo` executable as a subprocess, as a user's shell would.
///
/// The binary is the one `swift build` put next to this test bundle (the test target depends on
/// the executable, so it is always built first). Both output streams are read as they come, so
/// a test can wait for a line (the sandbox's URL) and a chatty child never blocks on a full pipe.
final class DemoProcess: Sendable {
    /// What a finished run left behind.
    struct Result: Sendable {
        /// The exit status; 128 plus the signal's number if a signal ended it.
        let status: Int32
        let standardOutput: String
        let standardError: String
    }

    /// The `strata-demo` the build produced, next to this test bundle.
    static let builtExecutable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("strata-demo")

    // `Process` is not Sendable; after `run()` it is only read (pid, status), which is thread-safe.
    private let process: LockedValue<Process>
    private let output: StreamCollector
    private let error: StreamCollector
    private let exited = LockedValue<(done: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    /// Starts `executable` with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: Variables set over this process's environment.
    ///   - directory: The working directory; the default is a fresh empty one.
    ///   - standardInput: Bytes the process reads on standard input, then end of file; nil for none.
    init(
        _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil,
        standardInput: Data? = nil, executable: URL = DemoProcess.builtExecutable
    ) throws {
        let process = Process()
        let outputPipe = Pipe()
        let errorPipe = Pipe()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = try directory ?? Self.temporaryDirectory()
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let inputPipe = standardInput.map { _ in Pipe() }
        process.standardInput = inputPipe ?? FileHandle.nullDevice
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        try process.run()
        if let inputPipe, let standardInput {
            inputPipe.fileHandleForWriting.write(standardInput)
            try inputPipe.fileHandleForWriting.close()
        }
        self.process = LockedValue(process)
        // A thread waits for the exit rather than a terminationHandler: on Linux, Foundation's
        // Process never frees itself (nor what it was given) once a terminationHandler is set.
        let exited = exited
        Thread {
            process.waitForExit()
            let waiter = exited.withLock { state -> CheckedContinuation<Void, Never>? in
                state.done = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }.start()
        output = StreamCollector(reading: outputPipe.fileHandleForReading)
        error = StreamCollector(reading: errorPipe.fileHandleForReading)
    }

    /// Runs `strata-demo` to completion.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil,
        standardInput: Data? = nil, executable: URL = DemoProcess.builtExecutable
    ) async throws -> Result {
        try await DemoProcess(
            arguments, environment: environment, directory: directory, standardInput: standardInput,
            executable: executable
        ).finished()
    }

    /// Standard output so far.
    var standardOutput: String { output.text }

    /// Waits until standard output contains `text`; `false` if the process closed it first.
    func waitForOutput(containing text: String) async -> Bool {
        await output.waitFor(text)
    }

    /// Sends `signal` to the process.
    func send(_ signal: Int32) {
        kill(process.withLock { $0.processIdentifier }, signal)
    }

    /// Waits for the process to end and both streams to close, and reads what it wrote.
    func finished() async -> Result {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = exited.withLock { state -> Bool in
                if !state.done { state.waiter = continuation }
                return state.done
            }
            if done { continuation.resume() }
        }
        await output.waitForEnd()
        await error.waitForEnd()
        let (reason, status) = process.withLock { ($0.terminationReason, $0.terminationStatus) }
        return Result(
            status: reason == .uncaughtSignal ? 128 + status : status,
            standardOutput: output.text, standardError: error.text)
    }

    /// A new empty directory, inside one directory per test process that is removed when the
    /// process exits.
    static func temporaryDirectory() throws -> URL {
        let directory = scratchRoot.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Where every test's files go; removed at exit.
    private static let scratchRoot: URL = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("strata-demo-tests-\(UUID().uuidString)")
        atexit { try? FileManager.default.removeItem(at: DemoProcess.scratchRoot) }
        return root
    }()
}
