#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestServer

/// nginx (Debian `nginx-light`) started by the bench on a loopback port with a generated
/// configuration: HTTP/1.1 over TLS 1.3 with the fixture leaf, keep-alive without limit, no
/// access log, one location answering `body` with an `ETag`. A server in another process that
/// is much faster than the client, so the client is what gets measured.
///
/// The port is chosen by the OS: a socket is bound to port 0 and released, and nginx is started
/// on that port; if another process took it meanwhile nginx fails to bind and is started again
/// on a new one. Starting and stopping block; call them off the cooperative pool.
final class BenchNginx: Sendable {
    static let executable = "/usr/sbin/nginx"
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    struct StartError: Error, CustomStringConvertible {
        var description: String
    }

    let port: Int
    /// `nginx/1.22.1`, as `nginx -v` prints it.
    let version: String
    private let process: Process
    private let directory: URL

    init(path: String, body: String, etag: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-bench-nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        version = Self.version()
        var failure = ""
        for _ in 0..<3 {
            let port = try RefusingPort().port
            let root = directory.path
            // One worker, no master: the client gets the other core. `return` needs no file and
            // ignores conditional headers, so every response is the same 200 with its ETag.
            let configuration = """
                daemon off;
                master_process off;
                worker_processes 1;
                error_log \(root)/error.log warn;
                pid \(root)/nginx.pid;
                events { worker_connections 1024; }
                http {
                    access_log off;
                    client_body_temp_path \(root)/client_body;
                    proxy_temp_path \(root)/proxy;
                    keepalive_requests 100000000;
                    keepalive_timeout 300s;
                    server {
                        listen 127.0.0.1:\(port) ssl;
                        ssl_certificate \(BenchFixtures.leafFile.path);
                        ssl_certificate_key \(BenchFixtures.leafKeyFile.path);
                        ssl_protocols TLSv1.3;
                        location = \(path) {
                            default_type application/json;
                            add_header ETag '\(etag)';
                            return 200 '\(body)';
                        }
                    }
                }
                """
            let file = directory.appendingPathComponent("nginx.conf")
            try configuration.write(to: file, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.executable)
            process.arguments = ["-p", root, "-c", file.path, "-e", "\(root)/error.log"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            if Self.waitUntilListening(port: port, process: process) {
                self.port = port
                self.process = process
                return
            }
            Self.end(process)
            failure = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
        }
        try? FileManager.default.removeItem(at: directory)
        throw StartError(description: "nginx did not start listening: \(failure)")
    }

    /// Stops nginx and removes its directory.
    func stop() {
        Self.end(process)
        try? FileManager.default.removeItem(at: directory)
    }

    /// SIGKILL: nginx without a master process keeps the signal mask it inherits, in which
    /// SIGTERM may be blocked. Nothing needs a graceful exit here.
    private static func end(_ process: Process) {
        guard process.isRunning else { return }
        _ = kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    private static func version() -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-v"]
        let output = Pipe()
        process.standardError = output
        process.standardOutput = output
        guard (try? process.run()) != nil else { return "nginx" }
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return text.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "nginx"
    }

    /// Polls until a TCP connect to the port succeeds (at most about 5 s) or nginx exits.
    private static func waitUntilListening(port: Int, process: Process) -> Bool {
        for _ in 0..<500 {
            guard process.isRunning else { return false }
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            close(fd)
            if connected { return true }
            usleep(10_000)
        }
        return false
    }
}
