#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataTesting
import Testing

@Suite("TransportStack: the flat spelling of a nested stack")
struct TransportStackTests {
    /// A layer that appends its name to the `X-Path` header, to see the order requests pass in.
    private func tag(_ name: String) -> TransportLayer {
        TransportLayer { inner in
            ClosureTransport { request in
                var request = request
                let path = request.headers["X-Path"].map { "\($0)," } ?? ""
                request.headers["X-Path"] = path + name
                return try await inner.send(request)
            }
        }
    }

    @Test("the first layer is outermost: requests pass the layers in the order they are written")
    func order() async throws {
        let terminal = ClosureTransport { _ in HTTPResponse(statusCode: 204) }
        let stack = TransportStack(tag("outer"), tag("middle"), tag("inner"), terminal: terminal)
        _ = try await stack.send(URLRequest(url: URL(string: "https://api.example.com/a")!))
        #expect(await terminal.recordedRequests.first?.headers["X-Path"] == "outer,middle,inner")
        #expect(
            try await TransportStack(layers: [], terminal: terminal).send(URLRequest(url: URL(string: "https://a.example/")!))
                .statusCode == 204)
    }

    @Test("the factories build Strata's decorators: observing, logging, reauth, retry and ETag work as nested ones do")
    func factories() async throws {
        let auth = InMemoryAuthService(accessToken: "old")
        let recorder = RecordingObserver()
        let logger = RecordingLogger()
        let origin = ClosureTransport.sequence([
            .succeeding(.status(401)), .succeeding(.status(503)),
            .succeeding(CannedResponse(string: "body", headers: ["ETag": "\"1\""])), .succeeding(.status(304)),
        ])
        let stack = TransportStack(
            .observing(recorder.record),
            .logging(logger: logger),
            .reauth(authService: auth, clock: TestClock()) { await auth.setAccessToken("new") },
            .retry(policy: RetryPolicy(jitter: .none, budget: nil), clock: TestClock()),
            .etag(store: InMemoryETagStore()),
            terminal: origin)
        var request = URLRequest(url: URL(string: "https://api.example.com/a")!)
        request.setValue("Bearer old", forHTTPHeaderField: "Authorization")
        #expect(try await stack.send(request).text == "body")
        request.setValue("Bearer new", forHTTPHeaderField: "Authorization")
        #expect(try await stack.send(request).source == .revalidated)
        #expect(
            recorder.names.filter { !$0.hasPrefix("request.") && !$0.hasPrefix("etag.") }
                == ["reauth.refresh.started", "reauth.refresh.succeeded", "reauth.resend.new-token", "retry.scheduled"])
        #expect(logger.eventNames.contains("etag.revalidated"))
    }
}
