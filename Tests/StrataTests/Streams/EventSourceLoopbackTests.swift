import Foundation
@testable import Strata
import StrataTesting
import TestServer
import Testing

/// The reconnecting reader against a real HTTP/1.1 server on loopback, through URLSessionTransport
/// under ReauthTransport, built by HTTPNetworkService from an endpoint that requires auth.
@Suite("EventSource over loopback: resuming after a drop, with a token refreshed between")
struct EventSourceLoopbackTests {
    /// A chunked event-stream response that writes `text` as one chunk, then either ends the
    /// body or closes the connection without the last chunk (a drop mid-stream).
    static func eventStream(_ text: String, drop: Bool) -> LoopbackHTTPServer.Response {
        .streamed(
            headers: [("Content-Type", "text/event-stream"), ("Transfer-Encoding", "chunked")],
            closeConnection: drop
        ) { write in
            let bytes = Data(text.utf8)
            _ = write(Data(String(bytes.count, radix: 16).utf8) + Data("\r\n".utf8) + bytes + Data("\r\n".utf8))
            if !drop { _ = write(Data("0\r\n\r\n".utf8)) }
        }
    }

    @Test("the server drops the stream, the old token is refused on reconnect, and the stream resumes from Last-Event-ID with the new one")
    func resumesAfterDropWithRefreshedToken() async throws {
        let server = try LoopbackHTTPServer()
        server.route("/feed") { request in
            switch (request.header("Authorization"), request.header("Last-Event-ID")) {
            case ("Bearer old", nil): Self.eventStream("retry: 250\nid: 1\ndata: first\n\nid: 2\ndata: half", drop: true)
            case ("Bearer old", _): LoopbackHTTPServer.Response(status: 401, text: "expired")
            case ("Bearer new", "1"): Self.eventStream("id: 2\ndata: second\n\n", drop: false)
            default: LoopbackHTTPServer.Response(status: 204)
            }
        }
        let auth = InMemoryAuthService(accessToken: "old")
        let refreshes = LockedValue(0)
        let transport = ReauthTransport(inner: URLSessionTransport(), authService: auth) {
            refreshes.withLock { $0 += 1 }
            await auth.setAccessToken("new")
        }
        let service = HTTPNetworkService(transport: transport, authService: auth)
        let clock = TestClock()
        let endpoint = TestEndpoint(path: "/feed", requiresAuth: true)
        var events: [ServerSentEvent] = []
        for try await event in service.events(endpoint, via: DefaultAPIEnvironment(baseURL: server.baseURL), clock: clock) {
            events.append(event)
        }

        #expect(
            events == [
                ServerSentEvent(data: "first", id: "1", retry: .milliseconds(250)),
                ServerSentEvent(data: "second", id: "2", retry: .milliseconds(250)),
            ])
        #expect(refreshes.withLock { $0 } == 1)
        let sent = server.requests.map { [$0.header("Authorization"), $0.header("Last-Event-ID")] }
        #expect(sent == [["Bearer old", nil], ["Bearer old", "1"], ["Bearer new", "1"], ["Bearer new", "2"]])
        #expect(server.requests.allSatisfy { $0.header("Accept") == "text/event-stream" && $0.header("Cache-Control") == "no-cache" })
        #expect(clock.sleeps == [.milliseconds(250), .milliseconds(250)])
    }
}
