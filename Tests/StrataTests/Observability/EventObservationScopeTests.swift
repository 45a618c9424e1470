#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing

/// A terminal that says nothing below it observes, as the network's terminals do, and records
/// whether each send ran inside a logical request.
private final class UnobservedTerminal: Transport, EventObservationScope, Sendable {
    private let scoped = LockedValue<[Bool]>([])
    var mayObserveEvents: Bool { false }
    /// For each send, whether it ran inside a logical request.
    var sendsInsideRequest: [Bool] { scoped.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let inside = TransportEvents.context != nil
        scoped.withLock { $0.append(inside) }
        return HTTPResponse(statusCode: 200, headers: ["ETag": "\"v1\""], body: Data("x".utf8), url: request.url)
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
