#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataPinning
import StrataTesting
import Testing

@Suite("PinningTransport says whether what it sends through may observe events")
struct PinningEventScopeTests {
    @Test("its default inner transport cannot; an observing inner one can, and the layers above then begin a logical request")
    func answersForItsInnerTransport() {
        let unobserved = TransportEvents.mayBeObserved(within: PinningTransport(pinnedDomains: [:]))
        let observed = PinningTransport(inner: ObservingTransport(inner: URLSessionTransport()) { _ in }, pinnedDomains: [:])
        let (pinning, retry) = (
            TransportEvents.mayBeObserved(within: observed), TransportEvents.mayBeObserved(within: RetryTransport(inner: observed))
        )
        #expect(!unobserved)
        #expect(pinning && retry)
    }

    @Test("an observer under it, for a host that is not pinned, sees a retry's attempts under one identifier")
    func observerUnderPinningSeesOneRequest() async throws {
        let recorder = RecordingObserver()
        let answers = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(path: "/items"), responses: [.status(503), CannedResponse(string: "ok")])
        ])
        let stack = RetryTransport(
            inner: PinningTransport(inner: recorder.observing(answers), pinnedDomains: [:]),
            policy: RetryPolicy(jitter: .none, budget: nil), clock: TestClock())
        let response = try await stack.send(HTTPRequest(url: URL(string: "https://api.example.com/items")!))
        #expect(response.statusCode == 200)
        #expect(recorder.all.map(\.attempt) == [1, 1, 2, 2])
        #expect(Set(recorder.all.map(\.requestID)).count == 1)
    }
}
