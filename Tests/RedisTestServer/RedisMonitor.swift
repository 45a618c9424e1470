#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import TestServer
import TestSupport

/// `redis-cli monitor` attached to a test server: a record of every command every client sends,
/// for tests that prove what never reaches Redis.
public final class RedisMonitor: Sendable {
    private let process: Process
    private let output: ProcessOutput

    /// Starts `redis-cli -p <port> monitor` and waits for its `OK`, after which it sees every command.
    init(port: Int, password: String?) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = ["redis-cli", "-h", "127.0.0.1", "-p", String(port)]
        // REDISCLI_AUTH keeps the password off the command line (and out of `ps`).
        if let password { process.environment = ProcessInfo.processInfo.environment.merging(["REDISCLI_AUTH": password]) { $1 } }
        arguments.append("monitor")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        output = ProcessOutput(pipe.fileHandleForReading)
        guard output.waitForLine(containing: "OK", timeout: 10 * TestTimeScale.factor) else {
            process.terminate()
            throw RedisServerProcess.StartError(log: "redis-cli monitor did not attach: \(output.text)")
        }
    }

    deinit {
        guard process.isRunning else { return }
        process.terminate()
        // Foundation frees a Process only once someone waited for it (see RedisServerProcess).
        let process = process
        Thread { process.waitForExit() }.start()
    }

    /// Every monitored line up to and including the first that contains `marker` (send a
    /// command carrying it, such as `ECHO <marker>`, after the commands of interest: MONITOR
    /// relays commands in the order the server ran them).
    public func lines(through marker: String) async -> [String] {
        await offCooperativePool { () -> [String] in
            _ = self.output.waitForLine(containing: marker, timeout: 10 * TestTimeScale.factor)
            return self.output.lines
        }
    }
}
