#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataTesting
import Testing

@Suite("ObservingTransport: one event stream for users and loggers")
struct ObservingTransportTests {
    let url = URL(string: "https://api.example.com/items")!

    private func flaky() -> CannedRoutesTransport {
        CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(path: "/items"), responses: [.status(503), CannedResponse(string: "ok")])
        ])
    }

    @Test("a user's observer receives the same typed events a LoggingTransport logs, with identifier and attempt")
    func sameStreamAsTheLogger() async throws {
        let recorder = RecordingObserver()
        let logger = RecordingLogger()
        let stack = recorder.observing(
            LoggingTransport(
                inner: RetryTransport(inner: flaky(), policy: RetryPolicy(jitter: .none, budget: nil), clock: TestClock()),
                logger: logger))
        _ = try await stack.send(URLRequest(url: url))

        // Below both observers: the same events, in the same order.
        let below = recorder.names.filter { $0 != "request.start" && $0 != "request.response" }
        #expect(below == ["retry.scheduled"])
        #expect(logger.eventNames.filter { !$0.hasPrefix("request.") } == below)
        let retry = try #require(recorder.all.first { $0.event is RetryEvent })
        #expect(retry.attempt == 1)
        #expect(Set(recorder.all.map(\.requestID)) == Set(logger.entries.compactMap { $0.metadata["request"] }))
        #expect(
            recorder.events(RetryEvent.self) == [
                .scheduled(
                    retry: 1, delay: .milliseconds(500), reason: .status(503),
                    delaySource: .backoff, method: .get, url: url)
            ])
    }

    @Test("observers stack: each sees every event below it, and only its own request start and outcome")
    func observersStack() async throws {
        let outer = RecordingObserver(), inner = RecordingObserver()
        let stack = outer.observing(
            RetryTransport(
                inner: inner.observing(flaky()),
                policy: RetryPolicy(jitter: .none, budget: nil), clock: TestClock()))
        _ = try await stack.send(URLRequest(url: url))
        #expect(outer.names == ["request.start", "retry.scheduled", "request.response"])
        #expect(inner.names == ["request.start", "request.response", "request.start", "request.response"])
        #expect(inner.all.map(\.attempt) == [1, 1, 2, 2])
        #expect(Set((outer.all + inner.all).map(\.requestID)).count == 1)
    }

    @Test("the request events carry the request, the response and the failure")
    func requestEvents() async throws {
        let recorder = RecordingObserver()
        _ = try await recorder.observing(CannedResponseTransport(string: "hi", statusCode: 201)).send(URLRequest(url: url))
        await #expect(throws: TransportError.self) {
            try await recorder.observing(ClosureTransport.failing(TransportError(.timedOut))).send(URLRequest(url: url))
        }
        let events = recorder.events(RequestEvent.self)
        guard events.count == 4, case .responded(let request, let response, _) = events[1],
            case .failed(_, let error, _) = events[3]
        else {
            Issue.record("unexpected events \(events)")
            return
        }
        #expect(request.url == url)
        #expect(response.statusCode == 201 && response.text == "hi")
        #expect((error as? TransportError)?.kind == .timedOut)
        #expect(events.map(\.logLevel) == [.debug, .info, .debug, .error])
    }
}
