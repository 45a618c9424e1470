#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataTesting
import Testing

/// What the canned origin reports for each send, so a test sees which attempt each send ran as.
private struct Answered: TransportEvent {
    let status: Int
    var name: String { "answered \(status)" }
    var logLevel: LogLevel { .debug }
    func message(redactedBy redaction: Redaction) -> String { name }
}

@Suite("Every event of one send carries that send's attempt number, across Retry and Reauth")
struct EventAttemptTests {
    let url = URL(string: "https://api.example.com/items")!

    /// A transport answering `statuses` in order (200 once they run out), reporting each answer.
    private func origin(_ statuses: [Int]) -> ClosureTransport {
        let remaining = LockedValue(statuses)
        return ClosureTransport { _ in
            let status = remaining.withLock { $0.isEmpty ? 200 : $0.removeFirst() }
            TransportEvents.emit(Answered(status: status))
            return HTTPResponse(statusCode: status)
        }
    }

    private func authorized() -> URLRequest {
        var request = URLRequest(url: url)
        request.setValue("Bearer old", forHTTPHeaderField: "Authorization")
        return request
    }

    /// `name@attempt` for each event the layers reported (the observer's own request events left out).
    private func trace(_ recorder: RecordingObserver) -> [String] {
        recorder.all.filter { !($0.event is RequestEvent) }.map { "\($0.event.name)@\($0.attempt)" }
    }

    @Test("Reauth over Retry: a scheduled retry and a refresh carry the attempt of the send that failed")
    func reauthOverRetry() async throws {
        let recorder = RecordingObserver()
        let auth = InMemoryAuthService(accessToken: "old")
        let stack = recorder.observing(
            ReauthTransport(
                inner: RetryTransport(inner: origin([503, 503, 401, 503, 200]), clock: TestClock()),
                authService: auth
            ) { await auth.setAccessToken("new") })
        _ = try await stack.send(authorized())
        #expect(
            trace(recorder) == [
                "answered 503@1", "retry.scheduled@1",
                "answered 503@2", "retry.scheduled@2",
                "answered 401@3", "reauth.refresh.started@3", "reauth.refresh.succeeded@3", "reauth.resend.new-token@3",
                "answered 503@4", "retry.scheduled@4",
                "answered 200@5",
            ])
    }

    @Test("Retry over Reauth: the retry of a resend that failed carries the resend's attempt")
    func retryOverReauth() async throws {
        let recorder = RecordingObserver()
        let auth = InMemoryAuthService(accessToken: "old")
        let stack = recorder.observing(
            RetryTransport(
                inner: ReauthTransport(inner: origin([401, 503, 200]), authService: auth) { await auth.setAccessToken("new") },
                clock: TestClock()))
        _ = try await stack.send(authorized())
        #expect(
            trace(recorder) == [
                "answered 401@1", "reauth.refresh.started@1", "reauth.refresh.succeeded@1", "reauth.resend.new-token@1",
                "answered 503@2", "retry.scheduled@2",
                "answered 200@3",
            ])
    }
}
