#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing

/// A terminal that says nothing below it observes, as the network's terminals do, and records
/// whether each send ran inside a logical request. It answers with `statuses` in turn, then 200s.
private final class UnobservedTerminal: Transport, EventObservationScope, Sendable {
    private let state: LockedValue<(statuses: [Int], scoped: [Bool])>
    var mayObserveEvents: Bool { false }
    /// For each send, whether it ran inside a logical request.
    var sendsInsideRequest: [Bool] { state.withLock { $0.scoped } }

    init(statuses: [Int] = []) {
        state = LockedValue((statuses, []))
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let inside = TransportEvents.context != nil
        let status = state.withLock { state in
            state.scoped.append(inside)
            return state.statuses.isEmpty ? 200 : state.statuses.removeFirst()
        }
        return HTTPResponse(statusCode: status, headers: ["ETag": "\"v1\""], body: Data("x".utf8), url: request.url)
    }
}

@Suite("A logical request is begun only where a layer below can observe it")
struct EventObservationScopeTests {
    private let request = HTTPRequest(url: URL(string: "https://api.example.com/items")!, headers: ["Authorization": "Bearer t"])
    private let auth = InMemoryAuthService(accessToken: "t")

    @Test("Retry and Reauth over a terminal that cannot observe push no task-local: nothing would read it")
    func noScopeOverTerminal() async throws {
        let terminal = UnobservedTerminal()
        _ = try await RetryTransport(inner: terminal).send(request)
        _ = try await ReauthTransport(inner: terminal, authService: auth) {}.send(request)
        _ = try await ReauthTransport(inner: RetryTransport(inner: ETagTransport(inner: terminal)), authService: auth) {}
            .send(request)
        #expect(terminal.sendsInsideRequest == [false, false, false])
    }

    @Test("over a transport that does not say (a third-party layer, a closure), one is begun as before")
    func scopeOverUnknownTransport() async throws {
        let inside = LockedValue<[Bool]>([])
        let unknown = ClosureTransport { request in
            inside.withLock { $0.append(TransportEvents.context != nil) }
            return HTTPResponse(statusCode: 200, url: request.url)
        }
        _ = try await RetryTransport(inner: unknown).send(request)
        _ = try await ReauthTransport(inner: unknown, authService: auth) {}.send(request)
        #expect(inside.withLock { $0 } == [true, true])
    }

    @Test("an observer between the layers and such a terminal sees every attempt under one identifier")
    func observerAboveAnUnobservedTerminal() async throws {
        let recorder = RecordingObserver()
        let stack = RetryTransport(
            inner: ETagTransport(inner: recorder.observing(UnobservedTerminal(statuses: [503]))),
            policy: RetryPolicy(jitter: .none, budget: nil), clock: TestClock())
        let response = try await stack.send(request)
        #expect(response.statusCode == 200)
        #expect(recorder.names == ["request.start", "request.response", "request.start", "request.response"])
        #expect(recorder.all.map(\.attempt) == [1, 1, 2, 2])
        #expect(Set(recorder.all.map(\.requestID)).count == 1)
    }

    @Test("a LoggingTransport or ObservingTransport anywhere below makes the layers above begin one")
    func observersBelowAreSeenThroughStrataLayers() {
        let terminal = UnobservedTerminal()
        let logging = LoggingTransport(inner: terminal, logger: ConsoleLogger())
        let observing = ObservingTransport(inner: terminal) { _ in }
        #expect(!TransportEvents.mayBeObserved(within: RetryTransport(inner: ETagTransport(inner: terminal))))
        #expect(TransportEvents.mayBeObserved(within: RetryTransport(inner: ETagTransport(inner: logging))))
        #expect(TransportEvents.mayBeObserved(within: ReauthTransport(inner: RetryTransport(inner: observing), authService: auth) {}))
        #expect(TransportEvents.mayBeObserved(within: TransportStack(layers: [.retry()], terminal: logging)))
        #expect(!TransportEvents.mayBeObserved(within: TransportStack(layers: [.retry(), .etag()], terminal: terminal)))
    }
}
