import Foundation
import TestServer

/// `nghttpd` (Debian `nghttp2-server`), nghttp2's own HTTP/2 server, on a loopback port with the
/// fixture certificates: HTTP/2 only, with knobs nginx lacks (a lowered
/// SETTINGS_MAX_CONCURRENT_STREAMS, echoed uploads, trailers).
public final class NGHTTPDServer: Sendable {
    /// Where nghttpd is installed: Debian's package puts it in `/usr/sbin` (the test looked only
    /// in `/usr/bin` for a while, so these tests skipped everywhere, CI included).
    public static let executable =
        ["/usr/sbin/nghttpd", "/usr/bin/nghttpd"].first { FileManager.default.isExecutableFile(atPath: $0) }
        ?? "/usr/sbin/nghttpd"
    /// Whether nghttpd is installed; tests skip with ``missing`` when not.
    public static var isInstalled: Bool { LoopbackProcess.isInstalled(executable) }
    public static let missing = "nghttpd is not installed (apt install nghttp2-server; .ci/run installs it)"

    private let process: LoopbackProcess

    /// Starts nghttpd on a free loopback port.
    ///
    /// - Parameters:
    ///   - options: nghttpd options, such as `--max-concurrent-streams=2`, `--echo-upload`,
    ///     `--trailer=x-checksum: abc`.
    ///   - files: Files served from its document root, by relative path.
    public init(identity: TLSLoopbackServer.Identity = .leafOnly, options: [String] = [], files: [String: Data] = [:]) throws {
        let chain = TLSLoopbackServer.fixtures.appendingPathComponent(identity.chainFile).path
        let key = TLSLoopbackServer.fixtures.appendingPathComponent(identity.keyFile).path
        process = try LoopbackProcess(
            executable: Self.executable,
            prepare: { _, directory in
                for (path, data) in files {
                    let url = directory.appendingPathComponent(path)
                    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try data.write(to: url)
                }
            },
            arguments: { port, directory in
                ["--address=127.0.0.1", "--htdocs=\(directory.path)"] + options + [String(port), key, chain]
            })
    }

    /// Starts nghttpd like ``init(identity:options:files:)``, off the cooperative pool.
    public static func start(
        identity: TLSLoopbackServer.Identity = .leafOnly, options: [String] = [],
        files: [String: Data] = [:]
    ) async throws -> NGHTTPDServer {
        try await offCooperativePool { try NGHTTPDServer(identity: identity, options: options, files: files) }
    }

    /// The port nghttpd listens on.
    public var port: Int { process.port }

    /// `https://localhost:<port><path>`.
    public func url(_ path: String) -> URL { URL(string: "https://localhost:\(port)\(path)")! }

    /// Stops nghttpd.
    public func stop() { process.stop() }
}
