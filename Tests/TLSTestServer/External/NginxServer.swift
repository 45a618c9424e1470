import Foundation
import TestServer

/// nginx (Debian `nginx-light`, which has the HTTP/2 module) on a loopback port, with the
/// fixture certificates and a configuration generated per test: a real HTTP/2 and HTTP/1.1
/// server for the pinning client's tests and benchmarks.
public final class NginxServer: Sendable {
    /// Where Debian installs nginx.
    public static let executable = "/usr/sbin/nginx"
    /// Whether nginx is installed; tests skip with this message when not.
    public static var isInstalled: Bool { LoopbackProcess.isInstalled(executable) }
    public static let missing = "nginx is not installed (apt install nginx-light; .ci/run installs it)"

    private let process: LoopbackProcess
    private let isTLS: Bool

    /// Starts nginx serving TLS on a free loopback port.
    ///
    /// - Parameters:
    ///   - identity: The fixture certificate and key to present.
    ///   - http2: Whether the listener offers HTTP/2 (ALPN `h2`); without it nginx speaks only HTTP/1.1.
    ///   - tls: Whether the listener speaks TLS; without it, plain HTTP/1.1 (for clients such as
    ///     URLSession on Linux, which cannot be told to trust the fixtures' private CA).
    ///   - directives: Directives inside the `server` block: `location`s, `keepalive_requests`, ...
    ///     `$root` stands for the server's directory (where `files` are written).
    ///   - files: Files to serve from the server's directory, by relative path.
    public init(
        identity: TLSLoopbackServer.Identity = .leafOnly, http2: Bool = true, tls: Bool = true, directives: String,
        files: [String: Data] = [:]
    ) throws {
        let chain = TLSLoopbackServer.fixtures.appendingPathComponent(identity.chainFile).path
        let key = TLSLoopbackServer.fixtures.appendingPathComponent(identity.keyFile).path
        isTLS = tls
        process = try LoopbackProcess(
            executable: Self.executable,
            prepare: { port, directory in
                for (path, data) in files {
                    let url = directory.appendingPathComponent(path)
                    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try data.write(to: url)
                }
                let root = directory.path
                let configuration = """
                    daemon off;
                    master_process off;
                    worker_processes 1;
                    error_log \(root)/error.log warn;
                    pid \(root)/nginx.pid;
                    events { worker_connections 4096; }
                    http {
                        log_format strata_connection '$connection';
                        access_log \(root)/access.log;
                        client_body_temp_path \(root)/client_body;
                        proxy_temp_path \(root)/proxy;
                        fastcgi_temp_path \(root)/fastcgi;
                        uwsgi_temp_path \(root)/uwsgi;
                        scgi_temp_path \(root)/scgi;
                        server {
                            \(tls ? "listen 127.0.0.1:\(port) ssl\(http2 ? " http2" : "");" : "listen 127.0.0.1:\(port);")
                            \(tls ? "ssl_certificate \(chain); ssl_certificate_key \(key);" : "")
                            root \(root);
                            \(directives.replacingOccurrences(of: "$root", with: root))
                        }
                    }
                    """
                try configuration.write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
            },
            arguments: { _, directory in
                [
                    "-p", directory.path, "-c", directory.appendingPathComponent("nginx.conf").path,
                    "-e", directory.appendingPathComponent("error.log").path,
                ]
            })
    }

    /// Starts nginx like ``init(identity:http2:tls:directives:files:)``, off the cooperative pool.
    public static func start(
        identity: TLSLoopbackServer.Identity = .leafOnly, http2: Bool = true, tls: Bool = true,
        directives: String, files: [String: Data] = [:]
    ) async throws -> NginxServer {
        try await offCooperativePool {
            try NginxServer(identity: identity, http2: http2, tls: tls, directives: directives, files: files)
        }
    }

    /// The port nginx listens on.
    public var port: Int { process.port }

    /// `https://localhost:<port><path>` (`http://127.0.0.1:<port><path>` without TLS).
    public func url(_ path: String) -> URL {
        URL(string: isTLS ? "https://localhost:\(port)\(path)" : "http://127.0.0.1:\(port)\(path)")!
    }

    /// The requests nginx logged, one line each (combined format: the request line is quoted).
    public var accessLog: [String] { lines(of: "access.log") }

    /// The lines of a file in the server's directory, such as a log a directive named
    /// (`access_log $root/connections.log strata_connection;` logs each request's connection number).
    public func lines(of file: String) -> [String] {
        process.lines(of: file)
    }

    /// Stops nginx.
    public func stop() { process.stop() }
}
