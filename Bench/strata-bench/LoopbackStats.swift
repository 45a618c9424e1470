#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata

/// Requests per second and latency percentiles of one run against a loopback server, for the
/// `urlsession` and `http2` benchmarks.
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
        name.padded(to: 44)
            + String(
                format: "%7.0f req/s  p50 %.3f ms  p99 %.3f ms  (n=%d)",
                requestsPerSecond, percentile(0.5), percentile(0.99), latencies.count)
    }
}

/// A response other than the 200 a benchmark expects.
struct UnexpectedStatus: Error, CustomStringConvertible {
    var status: Int
    var description: String { "the bench server answered \(status), not 200" }
}

/// Sends `request` `total` times from `concurrency` tasks and times each send.
///
/// With more than one task, each task asks for its own URL (`?task=N`, which the bench servers
/// ignore): identical concurrent `GET`s would be coalesced into one by ``ETagTransport``, and the
/// stack would then be measured doing less network work than the bare transport, not its cost.
func measure(_ name: String, transport: any Transport, request: HTTPRequest, total: Int, concurrency: Int) async throws -> Stats {
    let perTask = total / concurrency
    let start = ContinuousClock.now
    let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
        for task in 0..<concurrency {
            var request = request
            if concurrency > 1, var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false) {
                components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "task", value: String(task))]
                if let url = components.url { request.url = url }
            }
            group.addTask {
                var own: [Double] = []
                own.reserveCapacity(perTask)
                for _ in 0..<perTask {
                    let sent = ContinuousClock.now
                    let response = try await transport.send(request)
                    guard response.statusCode == 200 else { throw UnexpectedStatus(status: response.statusCode) }
                    own.append(Measurement.nanoseconds(ContinuousClock.now - sent) / 1e9)
                }
                return own
            }
        }
        return try await group.reduce(into: []) { $0 += $1 }
    }
    return Stats(name: name, seconds: Measurement.nanoseconds(ContinuousClock.now - start) / 1e9, latencies: latencies)
}
