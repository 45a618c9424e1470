// `strata-bench http2 [requests] [rounds]`: pinned HTTP/2 vs the pinned HTTP/1.1 pool vs
// URLSession, sequential and at 16 and 64 concurrent tasks, against nginx started on a free
// loopback port (Debian nginx-light). Rounds interleave the three clients so that machine load
// hits them alike; each figure is the median over the rounds.
//
// URLSession on Linux trusts only the system CA bundle, so it talks plain HTTP/1.1 to a second
// nginx listener: it is spared the TLS work the pinned clients do.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataPinning
import TestServer
import TLSTestServer

enum HTTP2Benchmark {
    private struct Client {
        var name: String
        var transport: any Transport
        var url: URL
        /// Connections the client opened since it was created (nil: not observable).
        var opened: Counter?
    }

    /// Counts `connectionOpened` events.
    final class Counter: Sendable {
        private let count = LockedValue(0)
        var value: Int { count.withLock { $0 } }
        var hook: @Sendable (PinningEvent) -> Void {
            { [self] event in if case .connectionOpened = event { count.withLock { $0 += 1 } } }
        }
    }

    private struct Run {
        var requestsPerSecond: Double
        var p50: Double
        var p99: Double
    }

    static func run(arguments: [String]) async throws {
        guard NginxServer.isInstalled else {
            print("strata-bench http2 needs nginx: apt-get install nginx-light")
            return
        }
        let total = arguments.first.flatMap(Int.init) ?? 6_400
        let rounds = arguments.dropFirst().first.flatMap(Int.init) ?? 5
        let body = #"{"id":42,"name":"Ada Lovelace","email":"ada@example.com","active":true}"#
        // keepalive_requests: nginx's default (1000) would end connections mid-run with GOAWAY.
        let directives = """
            keepalive_requests 10000000;
            location /small { default_type application/json; return 200 '\(body)'; }
            """
        let tls = try await NginxServer.start(directives: directives)
        let plain = try await NginxServer.start(tls: false, directives: directives)
        let ca = try Certificate(pem: String(contentsOf: TLSLoopbackServer.fixtures.appendingPathComponent("ca.pem"), encoding: .utf8))
        let pin = try Certificate(pem: String(contentsOf: TLSLoopbackServer.fixtures.appendingPathComponent("leaf-ec.pem"),
                                              encoding: .utf8)).spkiPin
        func pinned(_ version: HTTPVersionPolicy, _ counter: Counter) throws -> PinningTransport {
            PinningTransport(pinnedDomains: ["localhost": try PublicKeyPinningEvaluator(pins: [pin])],
                             trustRoots: .certificates([ca]),
                             configuration: .init(maxConnectionsPerHost: 8, httpVersion: version), onEvent: counter.hook)
        }
        let http2Count = Counter()
        let http1Count = Counter()
        let clients = [
            Client(name: "PinningTransport HTTP/2", transport: try pinned(.preferHTTP2, http2Count), url: tls.url("/small"),
                   opened: http2Count),
            Client(name: "PinningTransport HTTP/1.1 pool", transport: try pinned(.http1Only, http1Count), url: tls.url("/small"),
                   opened: http1Count),
            Client(name: "URLSessionTransport http (no TLS)", transport: URLSessionTransport(), url: plain.url("/small"), opened: nil),
        ]
        // Warm-up: every client has its connections and the server its workers' caches.
        for client in clients {
            _ = try await measure(client, total: 640, concurrency: 64)
        }
        print("nginx \(nginxVersion()) on loopback, \(body.utf8.count)-byte JSON, \(total) requests per run, "
              + "median of \(rounds) interleaved rounds, maxConnectionsPerHost 8")
        print("client".padding(toLength: 36, withPad: " ", startingAt: 0) + "  c    req/s   p50 ms   p99 ms  TLS connections opened so far")
        for concurrency in [1, 16, 64] {
            var runs = Array(repeating: [Run](), count: clients.count)
            for _ in 0..<rounds {
                for (index, client) in clients.enumerated() {
                    runs[index].append(try await measure(client, total: total, concurrency: concurrency))
                }
            }
            for (index, client) in clients.enumerated() {
                let median = { (values: [Double]) in values.sorted()[values.count / 2] }
                print(client.name.padding(toLength: 36, withPad: " ", startingAt: 0)
                      + String(format: "%3d %8.0f %8.3f %8.3f  ", concurrency, median(runs[index].map(\.requestsPerSecond)),
                               median(runs[index].map(\.p50)), median(runs[index].map(\.p99)))
                      + (client.opened.map { "\($0.value)" } ?? "n/a"))
            }
        }
        tls.stop()
        plain.stop()
    }

    private static func measure(_ client: Client, total: Int, concurrency: Int) async throws -> Run {
        let stats = try await strata_bench.measure(client.name, transport: client.transport, url: client.url, total: total,
                                                   concurrency: concurrency)
        return Run(requestsPerSecond: stats.requestsPerSecond, p50: stats.percentile(0.5), p99: stats.percentile(0.99))
    }

    private static func nginxVersion() -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: NginxServer.executable)
        process.arguments = ["-v"]
        let pipe = Pipe()
        process.standardError = pipe
        guard (try? process.run()) != nil else { return "" }
        process.waitUntilExit()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return text.split(separator: "/").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
    }
}
