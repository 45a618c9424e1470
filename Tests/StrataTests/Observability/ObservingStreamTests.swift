import Foundation
@testable import Strata
import StrataTesting
import Testing

@Suite("Observing and logging a streamed request: the head, then the end of the body, never the bytes")
struct ObservingStreamTests {
    @Test("an observer sees start, head, then the bytes the consumer read")
    func observedEvents() async throws {
        let inner = ScriptedStreamTransport([.init(statusCode: 200, chunks: [Array("abc".utf8), Array("de".utf8)])])
        let events = RecordingObserver()
        let read = try await events.observing(inner).stream(HTTPRequest(url: URL(string: "https://api.example.com/f")!)) { _, body in
            try await body.collect(upTo: 100).count
        }
        #expect(read == 5)
        #expect(events.names == ["request.start", "request.head", "request.streamed"])
        guard case .streamed(_, let head, let bytes, _) = events.events(RequestEvent.self).last else {
            Issue.record("no streamed event")
            return
        }
        #expect(head.statusCode == 200)
        #expect(bytes == 5)
    }

    @Test("a logged stream says how many bytes were streamed and logs no body, even with body logging on")
    func loggedLines() async throws {
        let inner = ScriptedStreamTransport([.init(statusCode: 200, chunks: [Array("secret-body".utf8)])])
        let logger = RecordingLogger()
        let transport = LoggingTransport(inner: inner, logger: logger, bodies: .truncated(maxBytes: 100))
        _ = try await transport.stream(HTTPRequest(url: URL(string: "https://api.example.com/f")!)) { _, body in
            try await body.collect(upTo: 100)
        }
        let lines = logger.entries.map(\.message)
        #expect(lines.contains { $0.contains("→ 200") && $0.contains("11 bytes streamed") })
        #expect(
            !logger.entries.contains { $0.message.contains("secret-body") || $0.metadata.values.contains { $0.contains("secret-body") } })
    }

    @Test("a failing stream is reported as a failure")
    func failure() async throws {
        let events = RecordingObserver()
        let transport = events.observing(ClosureTransport.failing(TransportError(.connectionLost)))
        await #expect(throws: TransportError.self) {
            try await transport.stream(HTTPRequest(url: URL(string: "https://api.example.com/f")!)) { _, _ in 0 }
        }
        #expect(events.names == ["request.start", "request.failure"])
    }
}
