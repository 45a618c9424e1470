import Foundation
import TestServer

/// tinyproxy (Debian `tinyproxy`) on a loopback port with a configuration generated per test:
/// a real HTTP proxy answering `CONNECT` for the pinning client's proxy tests.
public final class TinyproxyServer: Sendable {
    /// Where Debian installs tinyproxy.
    public static let executable = "/usr/bin/tinyproxy"
    /// Whether tinyproxy is installed; tests skip with ``missing`` when not.
    public static var isInstalled: Bool { LoopbackProcess.isInstalled(executable) }
    public static let missing = "tinyproxy is not installed (apt install tinyproxy; .ci/run installs it)"

    private let process: LoopbackProcess

    /// Starts tinyproxy on a free loopback port, accepting clients from 127.0.0.1 only.
    ///
    /// - Parameters:
    ///   - credentials: When given, the proxy requires them (`BasicAuth`) and answers 407 otherwise.
    ///   - connectPorts: When given, `CONNECT` is allowed to these ports only (403 otherwise);
    ///     by default to any port.
    public init(credentials: (user: String, password: String)? = nil, connectPorts: [Int]? = nil) throws {
        process = try LoopbackProcess(
            executable: Self.executable,
            prepare: { port, directory in
                var lines = [
                    "Port \(port)",
                    "Listen 127.0.0.1",
                    "Timeout 30",
                    "MaxClients 64",
                    // Connect level logs every request line, so tests can see what reached the proxy.
                    "LogLevel Connect",
                    "LogFile \"\(directory.path)/tinyproxy.log\"",
                    "PidFile \"\(directory.path)/tinyproxy.pid\"",
                    "Allow 127.0.0.1",
                ]
                if let credentials { lines.append("BasicAuth \(credentials.user) \(credentials.password)") }
                for port in connectPorts ?? [] { lines.append("ConnectPort \(port)") }
                try lines.joined(separator: "\n").write(
                    to: directory.appendingPathComponent("tinyproxy.conf"),
                    atomically: true, encoding: .utf8)
            },
            arguments: { _, directory in
                // -d: stay in the foreground, so the test owns the process.
                ["-d", "-c", directory.appendingPathComponent("tinyproxy.conf").path]
            })
    }

    /// Starts tinyproxy like ``init(credentials:connectPorts:)``, off the cooperative pool.
    public static func start(
        credentials: (user: String, password: String)? = nil,
        connectPorts: [Int]? = nil
    ) async throws -> TinyproxyServer {
        try await offCooperativePool { try TinyproxyServer(credentials: credentials, connectPorts: connectPorts) }
    }

    /// The port tinyproxy listens on.
    public var port: Int { process.port }

    /// `http://127.0.0.1:<port>`, with `user:password@` when given.
    public func url(user: String? = nil, password: String? = nil) -> String {
        let credentials = user.map { "\($0)\(password.map { ":\($0)" } ?? "")@" } ?? ""
        return "http://\(credentials)127.0.0.1:\(port)"
    }

    /// The `CONNECT` request lines tinyproxy logged, such as `CONNECT localhost:8443 HTTP/1.1`.
    public var connectRequests: [String] {
        process.lines(of: "tinyproxy.log").compactMap { line in
            // `CONNECT   <date> [pid]: Request (file descriptor 5): CONNECT localhost:8443 HTTP/1.1`
            line.range(of: "): CONNECT ").map { String(line[line.index($0.lowerBound, offsetBy: 3)...]) }
        }
    }

    /// Stops tinyproxy.
    public func stop() { process.stop() }
}
