#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
@testable import StrataPinning
import StrataTesting
import Testing
import TLSTestServer

@Suite("Reauth, Retry and Pinning report every event of a send under that send's attempt number")
struct PinningEventAttemptTests {
    @Test("503, 503, 401 then 200 with the new token: pinning, retry and reauth events each carry the send they follow")
    func attemptsAcrossLayers() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        let answered = LockedValue(0)
        server.http.route("/items") { request in
            guard request.header("Authorization") != "Bearer new" else { return .init(text: "ok") }
            let count = answered.withLock { count in
                count += 1; return count
            }
            return .init(status: count <= 2 ? 503 : 401, text: "")
        }
        let auth = InMemoryAuthService(accessToken: "old")
        let recorder = RecordingObserver()
        let stack = recorder.observing(
            ReauthTransport(
                inner: RetryTransport(inner: try Pinning.transport(), clock: TestClock()),
                authService: auth
            ) { await auth.setAccessToken("new") })

        let response = try await stack.send(Pinning.get(server.url("/items"), headers: ["Authorization": "Bearer old"]))
        #expect(response.statusCode == 200)

        let layered = recorder.all.compactMap { observed -> String? in
            switch observed.event {
            case PinningEvent.responseRead(_, let status, _, _): "pinning.response \(status)@\(observed.attempt)"
            case is RetryEvent, is ReauthEvent: "\(observed.event.name)@\(observed.attempt)"
            default: nil
            }
        }
        #expect(
            layered == [
                "pinning.response 503@1", "retry.scheduled@1",
                "pinning.response 503@2", "retry.scheduled@2",
                "pinning.response 401@3",
                "reauth.refresh.started@3", "reauth.refresh.succeeded@3", "reauth.resend.new-token@3",
                "pinning.response 200@4",
            ])
        // Every pinning event (connection opened or reused, request written, ...) belongs to the
        // send in progress: the count of sends begun so far.
        var send = 1
        for observed in recorder.all {
            if observed.event is PinningEvent {
                #expect(observed.attempt == send, "\(observed.event.name) of send \(send) reported as attempt \(observed.attempt)")
            }
            switch observed.event {
            case RetryEvent.scheduled, ReauthEvent.resentWithNewToken: send += 1
            default: break
            }
        }
        #expect(send == 4)
    }
}
