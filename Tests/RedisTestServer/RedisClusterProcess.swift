import Foundation
import TestServer
import TestSupport

/// A real Redis Cluster for tests: three (or more) `redis-server --cluster-enabled yes` primaries
/// on 127.0.0.1, each a ``RedisServerProcess`` (free port, temporary directory, no persistence),
/// joined by `redis-cli --cluster create … --cluster-replicas 0`, and ready once every node's
/// `CLUSTER INFO` says `cluster_state:ok`. Released, it kills every node and removes their
/// directories.
///
/// `cluster-require-full-coverage no`: a killed primary (no replica takes over here) leaves the
/// other nodes serving their slots, as a production cluster with replicas keeps serving during
/// a failover.
///
/// With `tls`, every node listens for TLS only (`--port 0 --tls-port`) and the nodes talk to
/// each other over TLS too (`--tls-cluster yes`), as managed clusters do: each presents the
/// fixtures' `client` certificate on the cluster bus and trusts both test CAs there.
public final class RedisClusterProcess: Sendable {
    /// The `redis-cli` executable on `PATH`, or `nil` when it is not installed.
    public static let cli: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("redis-cli") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Whether `redis-server` and `redis-cli` are installed; cluster tests are skipped without.
    public static var isInstalled: Bool { RedisServerProcess.isInstalled && cli != nil }

    /// The primaries, in the order `redis-cli` gave them slots (0–5460, 5461–10922, 10923–16383
    /// for three).
    public let nodes: [RedisServerProcess]
    /// What `redis-cli` needs to reach a TLS node: `--tls`, the CA, a client certificate.
    private let cliTLS: [String]
    /// Where the cluster bus's CA bundle is written, removed on release.
    private let directory: URL?

    private init(nodes: [RedisServerProcess], cliTLS: [String], directory: URL?) {
        self.nodes = nodes
        self.cliTLS = cliTLS
        self.directory = directory
    }

    deinit {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// Starts `primaries` nodes, creates the cluster and waits until every node reports it ok.
    ///
    /// - Parameter tls: Run the cluster over TLS only (see the type's documentation);
    ///   ``seedURLs`` are then `rediss://`.
    /// - Throws: ``RedisServerProcess/StartError`` with the tools' output when it cannot.
    public static func start(primaries: Int = 3, tls: RedisServerProcess.TLS? = nil) async throws -> RedisClusterProcess {
        guard let cli else { throw RedisServerProcess.StartError(log: "redis-cli is not installed (apt-get install redis-tools)") }
        let fixture = { (name: String) in RedisServerProcess.TLS.fixtures.appendingPathComponent(name).path }
        var clusterTLS: [String] = []
        var cliTLS: [String] = []
        var directory: URL?
        if tls != nil {
            // On the cluster bus every node is a TLS client of the others and must present a
            // certificate: the fixtures' `client` (a server leaf is not for client use), checked
            // against `client-ca`, while the server leaves lead to `ca`: the bus trusts both.
            let bundleDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "strata-redis-cluster-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: bundleDirectory, withIntermediateDirectories: true)
            directory = bundleDirectory
            let bundle = bundleDirectory.appendingPathComponent("ca-bundle.pem")
            let authorities =
                try String(contentsOfFile: fixture("ca.pem"), encoding: .utf8)
                + String(contentsOfFile: fixture("client-ca.pem"), encoding: .utf8)
            try authorities.write(to: bundle, atomically: true, encoding: .utf8)
            clusterTLS = [
                "--tls-cluster", "yes", "--tls-replication", "yes",
                "--tls-client-cert-file", fixture("client.pem"), "--tls-client-key-file", fixture("client.key"),
                // Given after RedisServerProcess's own `--tls-ca-cert-file`, so it wins.
                "--tls-ca-cert-file", bundle.path,
            ]
            cliTLS = ["--tls", "--cacert", fixture("ca.pem"), "--cert", fixture("client.pem"), "--key", fixture("client.key")]
        }
        var nodes: [RedisServerProcess] = []
        for _ in 0..<primaries {
            // The cluster bus listens on port + 10000 (the TLS port's, with tls-cluster); a
            // port whose bus port is taken or out of range fails to start, and
            // RedisServerProcess tries another.
            nodes.append(
                try await RedisServerProcess.start(
                    configuration: [
                        "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                        "--cluster-require-full-coverage", "no",
                    ] + clusterTLS,
                    tls: tls))
        }
        let cluster = RedisClusterProcess(nodes: nodes, cliTLS: cliTLS, directory: directory)
        let create = try await cluster.run(
            cli,
            ["--cluster", "create"] + nodes.map { "127.0.0.1:\($0.port)" }
                + ["--cluster-replicas", "0", "--cluster-yes"] + cliTLS)
        guard create.contains("All 16384 slots covered") else {
            throw RedisServerProcess.StartError(log: "redis-cli --cluster create failed:\n\(create)")
        }
        try await cluster.waitUntilHealthy()
        return cluster
    }

    /// `redis://127.0.0.1:<port>` of every node (`rediss://` for a TLS cluster), for a store's seeds.
    public var seedURLs: [URL] { nodes.map { $0.url() } }

    /// Runs `redis-cli -p <port of node> <arguments>` (over TLS for a TLS cluster) and returns
    /// its output.
    public func cli(_ node: Int, _ arguments: String...) async throws -> String {
        guard let cli = Self.cli else { return "" }
        return try await run(cli, ["-h", "127.0.0.1", "-p", String(nodes[node].port)] + cliTLS + arguments)
    }

    /// Waits until every running node's `CLUSTER INFO` says `cluster_state:ok` (polling every
    /// 50 ms for at most 30 s, scaled), leaving out the nodes in `except` (killed ones).
    ///
    /// - Throws: ``RedisServerProcess/StartError`` with the last answers when it does not.
    public func waitUntilHealthy(except: Set<Int> = []) async throws {
        let deadline = ContinuousClock.now + TestTimeScale.scaled(.seconds(30))
        var answers: [String] = []
        while ContinuousClock.now < deadline {
            answers = []
            for node in nodes.indices where !except.contains(node) {
                answers.append(try await cli(node, "cluster", "info"))
            }
            if answers.allSatisfy({ $0.contains("cluster_state:ok") }) { return }
            await offCooperativePool { Thread.sleep(forTimeInterval: 0.05) }
        }
        throw RedisServerProcess.StartError(log: "the cluster did not become ok:\n\(answers.joined(separator: "\n---\n"))")
    }

    private func run(_ executable: URL, _ arguments: [String]) async throws -> String {
        try await offCooperativePool {
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitForExit()
            return String(decoding: output, as: UTF8.self)
        }
    }
}
