#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataTesting
import Testing

@Suite("Event sequences across layers")
struct EventSequenceTests {
    let url = URL(string: "https://api.example.com/items")!

    @Test("a request retried twice then successful logs each attempt under one identifier")
    func retriedTwice() async throws {
        let logger = RecordingLogger()
        let flaky = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(path: "/items"), responses: [.status(503), .status(502), CannedResponse(string: "ok")]),
        ])
        let stack = LoggingTransport(
            inner: RetryTransport(inner: LoggingTransport(inner: flaky, logger: logger),
                                  policy: RetryPolicy(baseDelay: 0.1, jitter: .none),
                                  environment: RetryEnvironment(sleep: { _ in }, random: { 0.5 })),
            logger: logger)
        let response = try await stack.send(URLRequest(url: url))
        #expect(response.statusCode == 200)

        let summary = logger.entries.map { entry in
            [entry.message, entry.metadata["attempt"], entry.metadata["status"], entry.metadata["retry"]]
                .compactMap { $0 }.joined(separator: " ")
        }
        #expect(summary == [
            "request.start 1",                      // outer: the logical request
            "request.start 1", "request.response 1 503",
            "retry.scheduled 1 1",
            "request.start 2", "request.response 2 502",
            "retry.scheduled 1 2",
            "request.start 3", "request.response 3 200",
            "request.response 1 200",               // outer: the final outcome
        ])
        #expect(Set(logger.entries.compactMap { $0.metadata["request"] }).count == 1)
        #expect(logger.entries.filter { $0.message == "retry.scheduled" }.map { $0.metadata["delay_s"] } == ["0.100", "0.200"])
    }

    @Test("two logical requests get different identifiers")
    func distinctIdentifiers() async throws {
        let logger = RecordingLogger()
        let stack = LoggingTransport(inner: CannedResponseTransport(string: ""), logger: logger)
        _ = try await stack.send(URLRequest(url: url))
        _ = try await stack.send(URLRequest(url: url))
        #expect(Set(logger.entries.compactMap { $0.metadata["request"] }).count == 2)
    }
}
