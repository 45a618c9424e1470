// strata-bench: requests/s and latency percentiles of PinningTransport against
// URLSessionTransport on loopback, sequential and with 16 concurrent tasks.
//
//   swift build -c release --product strata-bench && .build/release/strata-bench [requests] [maxConnectionsPerHost]
//   .build/release/strata-bench stores     (ETag stores: Redis vs file vs memory)
//   .build/release/strata-bench events     (the event channel's cost per request)
//   .build/release/strata-bench http2 [requests] [rounds]   (pinned HTTP/2 vs HTTP/1.1 vs URLSession, nginx)
//   .build/release/strata-bench locks [increments]   (LockedValue vs Synchronization.Mutex; see LockBenchmark)
//
// Both transports talk to the test suite's loopback server (one thread per connection). On Linux
// URLSession trusts only the system CA bundle, so it cannot reach the private-CA TLS server:
// it is measured over plain http, which spares it the TLS work PinningTransport does. CI only
// builds this target; numbers depend on the machine and its load.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataPinning
import Synchronization
import TestServer
import TLSTestServer

// `strata-bench stores`: the ETag stores side by side (StoreBenchmark.swift).
if CommandLine.arguments.dropFirst().first == "stores" {
    try await StoreBenchmark.run()
    exit(0)
}
// `strata-bench events`: what observing and logging cost per request (EventBenchmark.swift).
if CommandLine.arguments.dropFirst().first == "events" {
    try await EventBenchmark.run()
    exit(0)
}

// `strata-bench http2`: HTTP/2 against the HTTP/1.1 pool and URLSession (HTTP2Benchmark.swift).
if CommandLine.arguments.dropFirst().first == "http2" {
    try await HTTP2Benchmark.run(arguments: Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
}

struct Stats {
    var name: String
    var seconds: Double
    var latencies: [Double]
    var requestsPerSecond: Double { Double(latencies.count) / seconds }
    /// The `p` quantile of the latencies, in milliseconds.
    func percentile(_ p: Double) -> Double {
        let sorted = latencies.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] * 1000
    }
    var line: String {
        name.padding(toLength: 44, withPad: " ", startingAt: 0)
            + String(format: "%7.0f req/s  p50 %.3f ms  p99 %.3f ms  (n=%d)",
                     requestsPerSecond, percentile(0.5), percentile(0.99), latencies.count)
    }
}

func measure(_ name: String, transport: any Transport, url: URL, total: Int, concurrency: Int) async throws -> Stats {
    let perTask = total / concurrency
    let start = ContinuousClock.now
    let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
        for _ in 0..<concurrency {
            group.addTask {
                var own: [Double] = []
                own.reserveCapacity(perTask)
                for _ in 0..<perTask {
                    let t0 = ContinuousClock.now
                    let response = try await transport.send(URLRequest(url: url))
                    precondition(response.statusCode == 200)
                    let d = ContinuousClock.now - t0
                    own.append(Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
                }
                return own
            }
        }
        return try await group.reduce(into: []) { $0 += $1 }
    }
    let d = ContinuousClock.now - start
    return Stats(name: name, seconds: Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18, latencies: latencies)
}

if CommandLine.arguments.dropFirst().first == "locks" {
    LockBenchmark.run(iterations: Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 10_000_000)
    exit(0)
}

let body = #"{"id":42,"name":"Ada Lovelace","email":"ada@example.com","active":true}"#
let tls = try TLSLoopbackServer(identity: .leafOnly)
tls.http.route("/small", response: .init(headers: [("Content-Type", "application/json")], text: body))
let plain = try LoopbackHTTPServer()
plain.route("/small", response: .init(headers: [("Content-Type", "application/json")], text: body))

let ca = try Certificate(pem: String(contentsOf: TLSLoopbackServer.fixtures.appendingPathComponent("ca.pem"), encoding: .utf8))
let leafPin = try Certificate(pem: String(contentsOf: TLSLoopbackServer.fixtures.appendingPathComponent("leaf-ec.pem"), encoding: .utf8)).spkiPin
let total = Int(CommandLine.arguments.dropFirst().first ?? "4000") ?? 4000
let perHost = Int(CommandLine.arguments.dropFirst(2).first ?? "8") ?? 8
let pinning = PinningTransport(inner: URLSessionTransport(), pinnedDomains: ["localhost": try PublicKeyPinningEvaluator(pins: [leafPin])],
                               trustRoots: .certificates([ca]),
                               configuration: .init(maxConnectionsPerHost: perHost))
let session = URLSessionTransport()
let pinnedURL = tls.url("/small")
let plainURL = plain.url("/small")

for _ in 0..<300 {
    _ = try await pinning.send(URLRequest(url: pinnedURL))
    _ = try await session.send(URLRequest(url: plainURL))
}
print("loopback, \(total) requests per run, \(body.utf8.count)-byte JSON body, maxConnectionsPerHost \(perHost)")
for round in 1...2 {
    print("round \(round)")
    for concurrency in [1, 16] {
        print(try await measure("PinningTransport https (TLS 1.3) c=\(concurrency)", transport: pinning, url: pinnedURL, total: total, concurrency: concurrency).line)
        print(try await measure("URLSessionTransport plain http c=\(concurrency)", transport: session, url: plainURL, total: total, concurrency: concurrency).line)
    }
}
print("TLS server connections: \(tls.http.connectionCount)")
