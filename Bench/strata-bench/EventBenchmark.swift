#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata

/// `strata-bench events`: what the one event channel costs per request, on a stack of Reauth,
/// Retry and ETag over an in-memory terminal (no network), so only the layers' own work counts.
///
/// Four ways to run the same stack: unobserved (every `emit` is one task-local read), under an
/// `ObservingTransport` with an empty closure, under a `LoggingTransport` whose level is off
/// (events are built and delivered, nothing is formatted), and logged at `trace` into a logger
/// that discards the lines (everything is formatted).
enum EventBenchmark {
    /// A logger that formats nothing and keeps nothing, at the level given.
    private struct DiscardingLogger: StrataLogger {
        let enabled: Bool
        func isEnabled(_ level: LogLevel) -> Bool { enabled }
        func record(_ level: LogLevel, _ message: String, metadata: LogMetadata) {}
    }

    /// A terminal that answers at once, with an ETag so the ETag layer stores and revalidates.
    private struct Answering: Transport {
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            HTTPResponse(
                statusCode: request.headers["If-None-Match"] == nil ? 200 : 304,
                headers: ["ETag": "\"v1\"", "Content-Type": "application/json"], body: Data("{}".utf8), url: request.url)
        }
    }

    static func run(requests: Int = 50_000) async throws {
        let auth = InMemoryAuthService(accessToken: "token")
        func stack() -> any Transport {
            ReauthTransport(inner: RetryTransport(inner: ETagTransport(inner: Answering())), authService: auth) {}
        }
        let variants: [(String, any Transport)] = [
            ("unobserved", stack()),
            ("ObservingTransport, empty observer", ObservingTransport(inner: stack()) { _ in }),
            ("LoggingTransport, level off", LoggingTransport(inner: stack(), logger: DiscardingLogger(enabled: false))),
            ("LoggingTransport, every level formatted", LoggingTransport(inner: stack(), logger: DiscardingLogger(enabled: true))),
        ]
        let request = HTTPRequest(
            url: URL(string: "https://api.example.com/v1/todos?page=1")!,
            headers: ["Authorization": "Bearer token"])
        print("Reauth → Retry → ETag over an in-memory terminal, \(requests) sequential requests (revalidated GETs)")
        for round in 1...2 {
            print("round \(round)")
            for (name, transport) in variants {
                for _ in 0..<1_000 { _ = try await transport.send(request) }
                let start = ContinuousClock.now
                for _ in 0..<requests { _ = try await transport.send(request) }
                let elapsed = (ContinuousClock.now - start).components
                let micros = (Double(elapsed.seconds) * 1e6 + Double(elapsed.attoseconds) / 1e12) / Double(requests)
                print("  \(name.padding(toLength: 40, withPad: " ", startingAt: 0)) \(String(format: "%6.2f", micros)) µs/request")
            }
        }
    }
}
