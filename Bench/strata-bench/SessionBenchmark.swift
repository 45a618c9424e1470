#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataPinning
import TestServer
import TLSTestServer

/// `strata-bench urlsession [requests] [maxConnectionsPerHost]`: requests/s and latency
/// percentiles of PinningTransport against URLSessionTransport on loopback, sequential and with
/// 16 concurrent tasks.
///
/// Both transports talk to the test suite's loopback server (one thread per connection). On Linux
/// URLSession trusts only the system CA bundle, so it cannot reach the private-CA TLS server:
/// it is measured over plain http, which spares it the TLS work PinningTransport does.
enum SessionBenchmark {
    static func run(_ options: BenchOptions) async throws {
        let body = #"{"id":42,"name":"Ada Lovelace","email":"ada@example.com","active":true}"#
        let tls = try TLSLoopbackServer(identity: .leafOnly)
        tls.http.route("/small", response: .init(headers: [("Content-Type", "application/json")], text: body))
        let plain = try LoopbackHTTPServer()
        plain.route("/small", response: .init(headers: [("Content-Type", "application/json")], text: body))

        let total = options.positional.first.flatMap { Int($0) } ?? 4000
        let perHost = options.positional.dropFirst().first.flatMap { Int($0) } ?? 8
        let pinning = try BenchFixtures.pinningTransport(maxConnectionsPerHost: perHost)
        let session = URLSessionTransport()
        let pinnedURL = tls.url("/small")
        let plainURL = plain.url("/small")

        for _ in 0..<300 {
            _ = try await pinning.send(HTTPRequest(url: pinnedURL))
            _ = try await session.send(HTTPRequest(url: plainURL))
        }
        print("loopback, \(total) requests per run, \(body.utf8.count)-byte JSON body, maxConnectionsPerHost \(perHost)")
        for round in 1...2 {
            print("round \(round)")
            for concurrency in [1, 16] {
                print(
                    try await measure(
                        "PinningTransport https (TLS 1.3) c=\(concurrency)", transport: pinning,
                        request: HTTPRequest(url: pinnedURL), total: total, concurrency: concurrency
                    ).line)
                print(
                    try await measure(
                        "URLSessionTransport plain http c=\(concurrency)", transport: session,
                        request: HTTPRequest(url: plainURL), total: total, concurrency: concurrency
                    ).line)
            }
        }
        print("TLS server connections: \(tls.http.connectionCount)")
    }
}
