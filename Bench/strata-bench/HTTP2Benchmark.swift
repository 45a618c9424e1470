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
        /// The nginx instance only this client talks to, which logs each request's connection.
        var server: NginxServer
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
        // Each client has an nginx of its own, so the connections it used can be counted there.
        let directives = """
            keepalive_requests 10000000;
            access_log $root/connections.log strata_connection;
            location /small { default_type application/json; return 200 '\(body)'; }
            """
        let ca = try Certificate(pem: String(contentsOf: TLSLoopbackServer.fixtures.appendingPathComponent("ca.pem"), encoding: .utf8))
        let pin = try Certificate(
            pem: String(
                contentsOf: TLSLoopbackServer.fixtures.appendingPathComponent("leaf-ec.pem"),
                encoding: .utf8)
        ).spkiPin
        func pinned(_ version: HTTPVersionPolicy) throws -> PinningTransport {
            PinningTransport(
                pinnedDomains: ["localhost": try PublicKeyPinningEvaluator(pins: [pin])],
                trustRoots: .certificates([ca]),
                configuration: .init(maxConnectionsPerHost: 8, httpVersion: version))
        }
        let http2Server = try await NginxServer.start(directives: directives)
        let http1Server = try await NginxServer.start(directives: directives)
        let plainServer = try await NginxServer.start(tls: false, directives: directives)
        let clients = [
            Client(
                name: "PinningTransport HTTP/2", transport: try pinned(.preferHTTP2), url: http2Server.url("/small"),
                server: http2Server),
            Client(
                name: "PinningTransport HTTP/1.1 pool", transport: try pinned(.http1Only), url: http1Server.url("/small"),
                server: http1Server),
            Client(
                name: "URLSessionTransport http (no TLS)", transport: URLSessionTransport(), url: plainServer.url("/small"),
                server: plainServer),
        ]
        // Warm-up: every client has its connections and the server its workers' caches.
        for client in clients {
            _ = try await measure(client, total: 640, concurrency: 64)
        }
        print(
            "nginx \(BenchFixtures.nginxVersion()) on loopback, \(body.utf8.count)-byte JSON, \(total) requests per run, "
                + "median of \(rounds) interleaved rounds, maxConnectionsPerHost 8")
        print(
            "client".padding(toLength: 36, withPad: " ", startingAt: 0)
                + "  c    req/s   p50 ms   p99 ms  connections used (most in a round)")
        for concurrency in [1, 16, 64] {
            var runs = Array(repeating: [Run](), count: clients.count)
            var connections = Array(repeating: 0, count: clients.count)
            for _ in 0..<rounds {
                for (index, client) in clients.enumerated() {
                    let logged = client.server.lines(of: "connections.log").count
                    runs[index].append(try await measure(client, total: total, concurrency: concurrency))
                    let used = Set(client.server.lines(of: "connections.log").dropFirst(logged)).count
                    connections[index] = max(connections[index], used)
                }
            }
            for (index, client) in clients.enumerated() {
                let median = { (values: [Double]) in values.sorted()[values.count / 2] }
                print(
                    client.name.padding(toLength: 36, withPad: " ", startingAt: 0)
                        + String(
                            format: "%3d %8.0f %8.3f %8.3f  %d", concurrency, median(runs[index].map(\.requestsPerSecond)),
                            median(runs[index].map(\.p50)), median(runs[index].map(\.p99)), connections[index]))
            }
        }
        for server in [http2Server, http1Server, plainServer] { server.stop() }
    }

    private static func measure(_ client: Client, total: Int, concurrency: Int) async throws -> Run {
        let stats = try await strata_bench.measure(
            client.name, transport: client.transport, request: HTTPRequest(url: client.url),
            total: total, concurrency: concurrency)
        return Run(requestsPerSecond: stats.requestsPerSecond, p50: stats.percentile(0.5), p99: stats.percentile(0.99))
    }
}
