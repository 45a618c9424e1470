import Foundation
import TestSupport

/// `curl` against the same server, for comparison: one process fetching every URL of a `-K`
/// list over one kept-alive connection, or `-Z --parallel-max 16` over up to 16. The time is the
/// whole process's, start and TLS handshakes included (a few milliseconds of a run).
enum CurlRun {
    static let executable = ["/usr/bin/curl", "/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The wall time curl took for `count` GETs of `url`, `parallel` at a time (1: sequential),
    /// and the CPU time (user and system) it used.
    ///
    /// curl checks the chain against the fixture CA, pins the leaf's key (`--pinnedpubkey`),
    /// speaks HTTP/1.1 and sends the same bearer token the Swift clients send.
    static func run(
        url: URL, count: Int, parallel: Int, pin: String, authorization: String,
        directory: URL
    ) throws -> (seconds: Double, cpuSeconds: Double) {
        let list = directory.appendingPathComponent("curl-\(count).txt")
        if !FileManager.default.fileExists(atPath: list.path) {
            let entry = "url = \"\(url.absoluteString)\"\noutput = \"/dev/null\"\n"
            try String(repeating: entry, count: count).write(to: list, atomically: true, encoding: .utf8)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable!)
        var arguments = [
            "--silent", "--show-error", "--fail", "--http1.1",
            "--cacert", BenchFixtures.caFile.path, "--pinnedpubkey", pin,
            "--resolve", "localhost:\(url.port!):127.0.0.1",
            "--header", "Authorization: \(authorization)", "--config", list.path,
        ]
        if parallel > 1 { arguments += ["--parallel", "--parallel-max", String(parallel)] }
        process.arguments = arguments
        // A file, not a pipe: thousands of failures would fill a pipe nobody reads until exit.
        let errorFile = directory.appendingPathComponent("curl-errors.txt")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        process.standardOutput = FileHandle.nullDevice
        let cpuBefore = childrenCPUSeconds()
        let start = ContinuousClock.now
        try process.run()
        process.waitForExit()
        let elapsed = ContinuousClock.now - start
        guard process.terminationStatus == 0 else {
            let message = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
            throw Failure(description: "curl exited with \(process.terminationStatus): \(message.prefix(500))")
        }
        return (Measurement.nanoseconds(elapsed) / 1e9, childrenCPUSeconds() - cpuBefore)
    }

    /// CPU time of the child processes that ended and were waited for (curl, here: nginx is
    /// still running, so none of its time is in it).
    private static func childrenCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
