#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Strata
import TestServer
import TestSupport

/// A real `redis-server` (Debian package `redis-server`) for tests and benchmarks, on
/// 127.0.0.1 with a free port chosen by the OS, a temporary working directory and no
/// persistence, killed and its directory removed when this value is released.
///
/// Redis has no `--port 0`, so a port is found by binding port 0 and closing it; when another
/// process takes that port first the server fails to bind and a new port is tried. Readiness
/// is the server's own "Ready to accept connections" log line, never a sleep. Blocking work
/// (starting, waiting, killing) runs on a thread of its own, off the cooperative pool.
public final class RedisServerProcess: Sendable {
    /// Why a server could not be started.
    public struct StartError: Error, CustomStringConvertible {
        /// The server's log up to the failure.
        public var log: String
        /// What went wrong, with the log.
        public var description: String { "redis-server did not start:\n\(log)" }
    }

    /// The `redis-server` executable on `PATH`, or `nil` when it is not installed.
    public static let executable: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("redis-server") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Whether `redis-server` is installed; tests that need it are skipped without it.
    public static var isInstalled: Bool { executable != nil }

    /// A TLS-only listener (`--port 0 --tls-port`) with certificates from the pinning test PKI
    /// (Tests/Fixtures/Pinning; `leaf-ec` names `localhost` and `127.0.0.1`).
    public struct TLS: Sendable {
        /// The server's certificate and key: a fixture's base name, such as `leaf-ec` or `wrong-host`.
        public var serverCertificate: String
        /// Whether a client must present a certificate issued by `client-ca` (`--tls-auth-clients`).
        public var requiresClientCertificate: Bool

        public init(serverCertificate: String = "leaf-ec", requiresClientCertificate: Bool = false) {
            self.serverCertificate = serverCertificate
            self.requiresClientCertificate = requiresClientCertificate
        }

        /// The pinning fixtures' directory, found from this file's path.
        public static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/Pinning")

        func arguments(port: Int) -> [String] {
            let file = { (name: String) in Self.fixtures.appendingPathComponent(name).path }
            return [
                "--port", "0", "--tls-port", String(port),
                "--tls-cert-file", file("\(serverCertificate).pem"), "--tls-key-file", file("\(serverCertificate).key"),
                // The CA client certificates must lead to; Redis wants one even when none is required.
                "--tls-ca-cert-file", file("client-ca.pem"),
                "--tls-auth-clients", requiresClientCertificate ? "yes" : "no",
            ]
        }
    }

    /// The port the server listens on, the same across ``restart()``.
    public let port: Int
    /// The server's working directory, removed on release.
    public let directory: URL
    private let arguments: [String]
    private let password: String?
    private let usesTLS: Bool
    private let running = LockedValue<Process?>(nil)

    private init(port: Int, directory: URL, arguments: [String], password: String?, usesTLS: Bool) {
        self.usesTLS = usesTLS
        self.port = port
        self.password = password
        self.directory = directory
        self.arguments = arguments
    }

    /// Starts a server.
    ///
    /// - Parameters:
    ///   - password: Set as `requirepass` (the `default` user's password) when given.
    ///   - configuration: More `--name value` settings, such as `["--maxmemory", "10mb"]`.
    ///   - tls: Listen for TLS only, on ``port``; ``url(user:password:database:)`` is then `rediss://`.
    /// - Throws: ``StartError`` with the server's log when it does not become ready.
    public static func start(
        password: String? = nil, configuration: [String] = [],
        tls: TLS? = nil
    ) async throws -> RedisServerProcess {
        guard let executable else { throw StartError(log: "redis-server is not installed (apt-get install redis-server)") }
        return try await offCooperativePool {
            var failures: [String] = []
            for _ in 0..<8 {
                // A directory per attempt: a server that failed to start removes its directory
                // when it is released, and the next attempt must not find it gone.
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-redis-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                let port = try RefusingPort().port
                var arguments =
                    (tls?.arguments(port: port) ?? ["--port", String(port)]) + [
                        "--bind", "127.0.0.1", "--dir", directory.path, "--save", "",
                        "--appendonly", "no", "--daemonize", "no", "--logfile", "", "--loglevel", "notice",
                    ]
                if let password { arguments += ["--requirepass", password] }
                arguments += configuration
                let server = RedisServerProcess(
                    port: port, directory: directory, arguments: arguments, password: password,
                    usesTLS: tls != nil)
                do {
                    try server.launch(executable)
                    return server
                } catch let error as StartError {
                    // Most likely another process took the port between our probe and the bind.
                    failures.append(error.log)
                }
            }
            throw StartError(log: failures.joined(separator: "\n---\n"))
        }
    }

    deinit {
        // Signal only: waiting here would block whichever thread releases the server, often a
        // cooperative one. A thread of its own waits instead: Foundation's Process reaps the
        // child either way, but frees itself (and what it was given) only once someone waited.
        if let process = running.withLock({ $0.take() }), process.isRunning {
            killProcess(process.processIdentifier)
            Thread { process.waitForExit() }.start()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// `redis://127.0.0.1:<port>` (`rediss://` for a TLS server), with user information and a
    /// database when given.
    public func url(user: String? = nil, password: String? = nil, database: Int? = nil) -> URL {
        let userInfo =
            switch (user, password) {
            case (let user?, let password?): "\(user):\(password)@"
            case (nil, let password?): ":\(password)@"
            default: ""
            }
        return URL(string: "\(usesTLS ? "rediss" : "redis")://\(userInfo)127.0.0.1:\(port)\(database.map { "/\($0)" } ?? "")")!
    }

    /// Starts `redis-cli monitor` against the server and returns once it is attached: every
    /// command any client sends from then on appears in its output.
    public func monitor() async throws -> RedisMonitor {
        try await offCooperativePool { try RedisMonitor(port: self.port, password: self.password) }
    }

    /// Kills the server with SIGKILL, as a crash or an OOM kill would, and waits for it to exit.
    public func kill() async {
        await offCooperativePool { self.killBlocking() }
    }

    /// Starts the server again on the same port with the same settings (and an empty data set).
    public func restart() async throws {
        guard let executable = Self.executable else { return }
        try await offCooperativePool { try self.launch(executable) }
    }

    private func launch(_ executable: URL) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let log = ProcessOutput(output.fileHandleForReading)
        guard log.waitForLine(containing: "Ready to accept connections", timeout: 10 * TestTimeScale.factor) else {
            if process.isRunning { killProcess(process.processIdentifier) }
            process.waitForExit()
            throw StartError(log: log.text)
        }
        running.withLock { $0 = process }
    }

    private func killBlocking() {
        guard let process = running.withLock({ $0.take() }) else { return }
        if process.isRunning { killProcess(process.processIdentifier) }
        process.waitForExit()
    }
}

/// Sends SIGKILL to `pid`.
private func killProcess(_ pid: Int32) {
    #if canImport(Glibc)
    _ = Glibc.kill(pid, SIGKILL)
    #else
    _ = Darwin.kill(pid, SIGKILL)
    #endif
}
