#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataPinning
import TestServer
import TLSTestServer

/// `strata-bench pinned`: bare `PinningTransport` against the full stack (Reauth → Retry →
/// ETag with an in-memory store → PinningTransport), sequential and with 16 concurrent tasks,
/// over loopback TLS 1.3 with keep-alive; and `curl` against the same server when installed.
///
/// The server is nginx when installed (a process of its own, one worker), else the test suite's
/// built-in TLS server (threads in this process, so it competes with the client for the CPU);
/// the report names it. Every client runs once per round, rounds interleaved (each starts one
/// client later), and the median round is reported. The full stack's cost is the median, over
/// rounds, of its time per request over the bare transport's in the same round.
enum PinnedBenchmark {
    struct Row: Encodable {
        var name: String
        var concurrency: Int
        /// Median requests per second over the rounds, and the slowest and fastest round.
        var requestsPerSecond: Double
        var slowestRound: Double
        var fastestRound: Double
        /// Latency percentiles over every round's requests (Swift clients only).
        var p50Milliseconds: Double?
        var p99Milliseconds: Double?
        /// Median CPU time per request: this process's (every thread) for the Swift clients,
        /// curl's own (user + system, from its rusage) for curl. The server's is not counted.
        var cpuMicrosecondsPerRequest: Double
    }

    struct Comparison: Encodable {
        /// `HTTP/1.1` or `HTTP/2`.
        var protocolName: String
        var concurrency: Int
        /// How much longer the full stack takes per request than the bare transport, in percent.
        var fullStackCostPercent: Double
        /// How much more CPU time per request the full stack uses, in percent.
        var fullStackCPUCostPercent: Double
        var targetPercent: Double
        var meetsTarget: Bool
        /// The bare transport's time per request over curl's, when curl ran.
        var bareOverCurl: Double?
    }

    struct Report: Encodable {
        var server: String
        var requestsPerRound: Int
        var rounds: Int
        var maxConnectionsPerHost: Int
        var rows: [Row]
        var comparisons: [Comparison]
    }

    private enum Client {
        case swift(any Transport)
        case curl
    }

    private struct Variant {
        var name: String
        var concurrency: Int
        var client: Client
        /// The request it sends: each protocol has a server of its own.
        var request: HTTPRequest
    }

    static let body = #"{"id":42,"name":"Ada Lovelace","email":"ada@example.com","active":true}"#
    static let etag = #""v1""#
    static let authorization = "Bearer token"
    static let maxConnectionsPerHost = 16

    static func run(_ options: BenchOptions, output: BenchOutput) async throws -> Report {
        let requests = options.requests ?? (options.quick ? 1_000 : 5_000)
        let rounds = options.rounds ?? (options.quick ? 3 : 7)
        let server = try await BenchServer.start(path: "/small", body: body, etag: etag, builtIn: options.builtInServer)
        let http2Server = try await BenchServer.start(
            path: "/small", body: body, etag: etag, builtIn: options.builtInServer,
            http2: true)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let report: Report
        do {
            report = try await measure(
                server: server, http2Server: http2Server, requests: requests, rounds: rounds,
                directory: directory, options: options, output: output)
        } catch {
            await server.stop()
            await http2Server?.stop()
            throw error
        }
        await server.stop()
        await http2Server?.stop()
        return report
    }

    /// The full stack of the README over a pinned transport.
    static func stack(over pinning: PinningTransport) -> any Transport {
        let auth = InMemoryAuthService(accessToken: "token")
        return ReauthTransport(
            inner: RetryTransport(inner: ETagTransport(inner: pinning, store: InMemoryETagStore())),
            authService: auth
        ) {}
    }

    private static let stackName = "Reauth → Retry → ETag → PinningTransport"
    private static let bareName = "PinningTransport alone"

    private static func measure(
        server: BenchServer, http2Server: BenchServer?, requests: Int, rounds: Int, directory: URL,
        options: BenchOptions, output: BenchOutput
    ) async throws -> Report {
        let request = HTTPRequest(url: server.url, headers: ["Authorization": authorization])
        let bare = try BenchFixtures.pinningTransport(maxConnectionsPerHost: maxConnectionsPerHost)
        let stacked = Self.stack(over: try BenchFixtures.pinningTransport(maxConnectionsPerHost: maxConnectionsPerHost))
        var variants = [
            Variant(name: bareName, concurrency: 1, client: .swift(bare), request: request),
            Variant(name: stackName, concurrency: 1, client: .swift(stacked), request: request),
            Variant(name: bareName, concurrency: 16, client: .swift(bare), request: request),
            Variant(name: stackName, concurrency: 16, client: .swift(stacked), request: request),
        ]
        if let http2Server {
            // One HTTP/2 connection carries every stream; the bare and stacked transports have one each.
            let http2Request = HTTPRequest(url: http2Server.url, headers: ["Authorization": authorization])
            let bare2 = try BenchFixtures.pinningTransport(maxConnectionsPerHost: maxConnectionsPerHost, httpVersion: .preferHTTP2)
            let stack2 = Self.stack(
                over: try BenchFixtures.pinningTransport(
                    maxConnectionsPerHost: maxConnectionsPerHost,
                    httpVersion: .preferHTTP2))
            variants += [
                Variant(name: bareName + " h2", concurrency: 1, client: .swift(bare2), request: http2Request),
                Variant(name: stackName + " h2", concurrency: 1, client: .swift(stack2), request: http2Request),
                Variant(name: bareName + " h2", concurrency: 16, client: .swift(bare2), request: http2Request),
                Variant(name: stackName + " h2", concurrency: 16, client: .swift(stack2), request: http2Request),
            ]
        }
        if CurlRun.executable != nil {
            variants += [
                Variant(name: "curl -K list, one process", concurrency: 1, client: .curl, request: request),
                Variant(name: "curl -Z --parallel-max 16", concurrency: 16, client: .curl, request: request),
            ]
        }
        variants = variants.filter { options.includes("\($0.name) c=\($0.concurrency)") }
        let pin = "sha256//" + (try BenchFixtures.leafPin().dropFirst("sha256/".count))

        output.line(
            "Pinned transport over loopback TLS 1.3, HTTP/1.1 keep-alive (and HTTP/2, \"h2\", one connection), "
                + "\(body.utf8.count)-byte JSON body with an ETag")
        output.line(
            "server: \(server.name); \(formatted(Double(requests))) requests per client and round, \(rounds) "
                + "interleaved rounds, medians; maxConnectionsPerHost \(maxConnectionsPerHost)")
        // Warm up: every connection of both pools open, the stack's store filled.
        for variant in variants {
            guard case .swift(let transport) = variant.client else { continue }
            _ = try await strata_bench.measure(
                "warm-up", transport: transport, request: variant.request, total: 16 * 50,
                concurrency: 16)
        }
        var seconds = [[Double]](repeating: [], count: variants.count)
        var cpu = [[Double]](repeating: [], count: variants.count)
        var latencies = [[Double]](repeating: [], count: variants.count)
        for round in 0..<rounds {
            for offset in variants.indices {
                let index = (offset + round) % variants.count
                let variant = variants[index]
                switch variant.client {
                case .swift(let transport):
                    let cpuBefore = Measurement.processCPUNanoseconds
                    let run = try await strata_bench.measure(
                        variant.name, transport: transport, request: variant.request,
                        total: requests, concurrency: variant.concurrency)
                    cpu[index].append((Measurement.processCPUNanoseconds - cpuBefore) / 1e3 / Double(requests))
                    seconds[index].append(run.seconds)
                    latencies[index] += run.latencies
                case .curl:
                    let url = server.url
                    let parallel = variant.concurrency
                    let run = try await offCooperativePool {
                        try CurlRun.run(
                            url: url, count: requests, parallel: parallel, pin: pin,
                            authorization: authorization, directory: directory)
                    }
                    seconds[index].append(run.seconds)
                    cpu[index].append(run.cpuSeconds * 1e6 / Double(requests))
                }
            }
        }

        let rows = variants.indices.map { index -> Row in
            let rates = seconds[index].map { Double(requests) / $0 }
            let sorted = latencies[index].sorted()
            func percentile(_ p: Double) -> Double? {
                sorted.isEmpty ? nil : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] * 1000
            }
            return Row(
                name: variants[index].name, concurrency: variants[index].concurrency,
                requestsPerSecond: Measurement.median(rates), slowestRound: rates.min()!, fastestRound: rates.max()!,
                p50Milliseconds: percentile(0.5), p99Milliseconds: percentile(0.99),
                cpuMicrosecondsPerRequest: Measurement.median(cpu[index]))
        }
        var comparisons: [Comparison] = []
        for (protocolName, suffix) in [("HTTP/1.1", ""), ("HTTP/2", " h2")] {
            for concurrency in [1, 16] {
                func index(_ name: String) -> Int? {
                    variants.firstIndex { $0.name == name && $0.concurrency == concurrency }
                }
                func times(_ prefix: String) -> [Double]? {
                    guard suffix.isEmpty else { return nil }
                    return variants.firstIndex { $0.name.hasPrefix(prefix) && $0.concurrency == concurrency }.map { seconds[$0] }
                }
                guard let bare = index(bareName + suffix), let stack = index(stackName + suffix) else { continue }
                let bareTimes = seconds[bare], stackTimes = seconds[stack]
                let cost = Measurement.median(zip(stackTimes, bareTimes).map { ($0 / $1 - 1) * 100 })
                let cpuCost = Measurement.median(zip(cpu[stack], cpu[bare]).map { ($0 / $1 - 1) * 100 })
                let overCurl = times("curl").map { Measurement.median(zip(bareTimes, $0).map { $0 / $1 }) }
                comparisons.append(
                    Comparison(
                        protocolName: protocolName, concurrency: concurrency, fullStackCostPercent: cost,
                        fullStackCPUCostPercent: cpuCost, targetPercent: 5,
                        meetsTarget: cost <= 5, bareOverCurl: overCurl))
            }
        }

        output.line(
            "client".padded(to: 44) + "tasks".leftPadded(to: 6) + "req/s".leftPadded(to: 9)
                + "rounds".leftPadded(to: 17) + "p50 ms".leftPadded(to: 9) + "p99 ms".leftPadded(to: 9)
                + "cpu µs/req".leftPadded(to: 12))
        for row in rows {
            output.line(
                row.name.padded(to: 44) + String(row.concurrency).leftPadded(to: 6)
                    + formatted(row.requestsPerSecond).leftPadded(to: 9)
                    + "\(formatted(row.slowestRound))–\(formatted(row.fastestRound))".leftPadded(to: 17)
                    + (row.p50Milliseconds.map { formatted($0, decimals: 3) } ?? "").leftPadded(to: 9)
                    + (row.p99Milliseconds.map { formatted($0, decimals: 3) } ?? "").leftPadded(to: 9)
                    + formatted(row.cpuMicrosecondsPerRequest, decimals: 1).leftPadded(to: 12))
        }
        for comparison in comparisons {
            let tasks = comparison.concurrency == 1 ? "sequential" : "\(comparison.concurrency) tasks"
            output.line(
                "\(comparison.protocolName), \(tasks): the full stack takes \(formatted(comparison.fullStackCostPercent, decimals: 1))% more time "
                    + "than bare PinningTransport (target ≤ 5%: \(comparison.meetsTarget ? "met" : "MISSED")) and "
                    + "\(formatted(comparison.fullStackCPUCostPercent, decimals: 1))% more CPU"
                    + (comparison.bareOverCurl.map { "; bare takes \(formatted($0, decimals: 2))× curl's time" } ?? ""))
        }
        return Report(
            server: server.name, requestsPerRound: requests, rounds: rounds,
            maxConnectionsPerHost: maxConnectionsPerHost, rows: rows, comparisons: comparisons)
    }
}

/// The loopback TLS server of `strata-bench pinned`: nginx when installed, else the built-in one.
enum BenchServer: Sendable {
    case nginx(NginxServer, version: String, path: String)
    case builtIn(TLSLoopbackServer, path: String)

    /// Starts the server answering `path` with `body` and an `ETag`. nginx speaks HTTP/1.1 only
    /// (the HTTP/1.1 pool is what is measured), TLS 1.3, keep-alive without limit, no access
    /// log; `return` ignores conditional headers, so every answer is the same 200.
    static func start(path: String, body: String, etag: String, builtIn: Bool) async throws -> BenchServer {
        guard let server = try await start(path: path, body: body, etag: etag, builtIn: builtIn, http2: false) else {
            preconditionFailure("an HTTP/1.1 server always starts")
        }
        return server
    }

    /// The same over HTTP/2, or `nil` when nginx is not installed (the built-in server speaks HTTP/1.1).
    static func start(path: String, body: String, etag: String, builtIn: Bool, http2: Bool) async throws -> BenchServer? {
        if NginxServer.isInstalled, !builtIn {
            let directives = """
                access_log off;
                keepalive_requests 100000000;
                keepalive_timeout 300s;
                ssl_protocols TLSv1.3;
                location = \(path) { default_type application/json; add_header ETag '\(etag)'; return 200 '\(body)'; }
                """
            let server = try await NginxServer.start(http2: http2, directives: directives)
            return .nginx(server, version: await offCooperativePool { BenchFixtures.nginxVersion() }, path: path)
        }
        guard !http2 else { return nil }
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route(path, response: .init(headers: [("Content-Type", "application/json"), ("ETag", etag)], text: body))
        return .builtIn(server, path: path)
    }

    var name: String {
        switch self {
        case .nginx(_, let version, _): "nginx \(version), one worker process, no master (another process)"
        case .builtIn:
            "the built-in test server, a thread per connection in this process"
                + (NginxServer.isInstalled ? "" : " (nginx is not installed)")
        }
    }

    var url: URL {
        switch self {
        case .nginx(let nginx, _, let path): nginx.url(path)
        case .builtIn(let server, let path): server.url(path)
        }
    }

    func stop() async {
        if case .nginx(let nginx, _, _) = self { await offCooperativePool { nginx.stop() } }
    }
}
