import Foundation
@testable import Strata
import StrataTesting
import Testing

@Suite("EventSource reconnects as a browser's EventSource does, within bounds")
struct EventSourceTests {
    static let url = URL(string: "https://api.example.com/feed")!

    static func source(
        _ script: EventStreamScript, clock: TestClock = TestClock(), lastEventID: String? = nil,
        reconnect: ReconnectPolicy = ReconnectPolicy()
    ) -> EventSource {
        EventSource(transport: script, request: HTTPRequest(url: url), lastEventID: lastEventID, reconnect: reconnect, clock: clock)
    }

    static func collect(_ source: EventSource) async throws -> [String] {
        var data: [String] = []
        for try await event in source { data.append(event.data) }
        return data
    }

    @Test("every connection asks for text/event-stream with Cache-Control: no-cache; the first sends no Last-Event-ID")
    func eventStreamHeaders() async throws {
        let script = EventStreamScript([.events("data: a\n\n")])
        _ = try await Self.collect(Self.source(script))
        let first = try #require(script.requests.first)
        #expect(first.headers["Accept"] == "text/event-stream")
        #expect(first.headers["Cache-Control"] == "no-cache")
        #expect(first.headers["Last-Event-ID"] == nil)
        #expect(script.requests.allSatisfy { $0.headers["Accept"] == "text/event-stream" })
    }

    @Test("after a clean end it reconnects after the server's retry:, sending Last-Event-ID")
    func reconnectsAfterEnd() async throws {
        let clock = TestClock()
        let script = EventStreamScript([.events("retry: 1500\nid: 1\ndata: a\n\n"), .events("id: 2\ndata: b\n\n")])
        #expect(try await Self.collect(Self.source(script, clock: clock)) == ["a", "b"])
        #expect(script.requests.map { $0.headers["Last-Event-ID"] } == [nil, "1", "2"])
        #expect(clock.sleeps == [.milliseconds(1500), .milliseconds(1500)])
    }

    @Test("after the connection drops mid-stream it reconnects and resumes with Last-Event-ID")
    func reconnectsAfterDrop() async throws {
        let clock = TestClock()
        let script = EventStreamScript([
            .respond(chunks: ["id: 41\ndata: a\n\n", "id: 42\ndata: b\n\ndata: cut"], end: .drop),
            .events("id: 43\ndata: c\n\n"),
        ])
        #expect(try await Self.collect(Self.source(script, clock: clock)) == ["a", "b", "c"])
        #expect(script.requests.map { $0.headers["Last-Event-ID"] } == [nil, "42", "43"])
        #expect(clock.sleeps == [.seconds(3), .seconds(3)])
    }

    @Test("without a retry: field it waits the policy's delay")
    func policyDelay() async throws {
        let clock = TestClock()
        let script = EventStreamScript([.events("data: a\n\n")])
        _ = try await Self.collect(Self.source(script, clock: clock, reconnect: ReconnectPolicy(delay: .milliseconds(250))))
        #expect(clock.sleeps == [.milliseconds(250)])
    }

    @Test("the server's retry: is capped by maxDelay")
    func retryCapped() async throws {
        let clock = TestClock()
        let script = EventStreamScript([.events("retry: 86400000\ndata: a\n\n")])
        _ = try await Self.collect(Self.source(script, clock: clock, reconnect: ReconnectPolicy(maxDelay: .seconds(30))))
        #expect(clock.sleeps == [.seconds(30)])
    }

    @Test("a 204 finishes the stream without reconnecting")
    func noContentFinishes() async throws {
        let script = EventStreamScript([.respond(status: 204, contentType: nil, chunks: [])])
        #expect(try await Self.collect(Self.source(script)).isEmpty)
        #expect(script.requests.count == 1)
    }

    @Test("a 200 that is not text/event-stream throws notEventStream and does not reconnect")
    func wrongContentType() async throws {
        let script = EventStreamScript([.respond(contentType: "text/html", chunks: ["<html>"])])
        let error = await #expect(throws: ServerSentEventError.self) { try await Self.collect(Self.source(script)) }
        guard case .notEventStream(let contentType, let url) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(contentType == "text/html")
        #expect(url == Self.url)
        #expect(script.requests.count == 1)
    }

    @Test("a missing Content-Type is not an event stream either")
    func missingContentType() async throws {
        let script = EventStreamScript([.respond(contentType: nil, chunks: ["data: a\n\n"])])
        await #expect(throws: ServerSentEventError.self) { try await Self.collect(Self.source(script)) }
    }

    @Test("text/event-stream with parameters and in any case is an event stream")
    func contentTypeParameters() async throws {
        let script = EventStreamScript([.respond(contentType: "Text/Event-Stream; charset=utf-8", chunks: ["data: a\n\n"])])
        #expect(try await Self.collect(Self.source(script)) == ["a"])
    }

    @Test("another status than 200 throws unexpectedStatus with the body, and does not reconnect")
    func unexpectedStatus() async throws {
        let script = EventStreamScript([.respond(status: 503, contentType: "text/plain", chunks: ["down"])])
        let error = await #expect(throws: ServerSentEventError.self) { try await Self.collect(Self.source(script)) }
        guard case .unexpectedStatus(let response) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(response.statusCode == 503)
        #expect(String(decoding: response.body, as: UTF8.self) == "down")
        #expect(script.requests.count == 1)
    }

    @Test("failed connection attempts back off, doubling, and give up after maxFailedAttempts")
    func backoffAndGiveUp() async throws {
        let clock = TestClock()
        let refused = TransportError(.cannotConnect, message: "refused")
        let script = EventStreamScript(Array(repeating: .fail(refused), count: 5))
        let error = await #expect(throws: ServerSentEventError.self) {
            try await Self.collect(Self.source(script, clock: clock, reconnect: ReconnectPolicy(maxFailedAttempts: 4)))
        }
        guard case .reconnectFailed(let attempts, let lastError) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(attempts == 4)
        #expect((lastError as? TransportError)?.kind == .cannotConnect)
        #expect(clock.sleeps == [.seconds(3), .seconds(6), .seconds(12)])
        #expect(script.requests.count == 4)
    }

    @Test("a connection that got its head resets the failed-attempt count")
    func headResetsFailures() async throws {
        let clock = TestClock()
        let refused = EventStreamScript.Connection.fail(TransportError(.cannotConnect))
        let script = EventStreamScript([refused, refused, .events("data: a\n\n"), refused])
        #expect(try await Self.collect(Self.source(script, clock: clock)) == ["a"])
        #expect(clock.sleeps == [.seconds(3), .seconds(6), .seconds(3), .seconds(3)])
    }

    @Test("a failure to connect that is not transient (TLS, a pin) ends the stream at once with that error")
    func permanentFailure() async throws {
        let script = EventStreamScript([.fail(TransportError(.tls, message: "pin mismatch"))])
        let error = await #expect(throws: TransportError.self) { try await Self.collect(Self.source(script)) }
        #expect(error?.kind == .tls)
        #expect(script.requests.count == 1)
    }

    @Test("ReconnectPolicy.never finishes when its one connection ends, and throws when it drops")
    func never() async throws {
        let clock = TestClock()
        let ended = EventStreamScript([.events("data: a\n\n")])
        #expect(try await Self.collect(Self.source(ended, clock: clock, reconnect: .never)) == ["a"])
        #expect(ended.requests.count == 1)
        let dropped = EventStreamScript([.respond(chunks: ["data: a\n\n"], end: .drop)])
        let error = await #expect(throws: TransportError.self) {
            try await Self.collect(Self.source(dropped, clock: clock, reconnect: .never))
        }
        #expect(error?.kind == .connectionLost)
        #expect(clock.sleeps.isEmpty)
    }

    @Test("a saved last event ID is sent from the first connection on, and kept by a stream that sets none")
    func savedLastEventID() async throws {
        let script = EventStreamScript([.events("data: a\n\n")])
        let events = try await Array(Self.source(script, lastEventID: "saved-9"))
        #expect(events == [ServerSentEvent(data: "a", id: "saved-9")])
        #expect(script.requests.map { $0.headers["Last-Event-ID"] } == ["saved-9", "saved-9"])
    }

    @Test("an ID a header cannot carry is not sent as Last-Event-ID")
    func unsendableID() async throws {
        let script = EventStreamScript([.events("id: a\u{1}b\ndata: a\n\n")])
        _ = try await Self.collect(Self.source(script))
        #expect(script.requests.map { $0.headers["Last-Event-ID"] } == [nil, nil])
    }

    @Test("an event larger than maxEventBytes ends the stream with eventTooLarge, without reconnecting")
    func tooLarge() async throws {
        let script = EventStreamScript([.events("data: \(String(repeating: "x", count: 200))\n\n")])
        let source = EventSource(transport: script, request: HTTPRequest(url: Self.url), maxEventBytes: 100, clock: TestClock())
        await #expect(throws: ServerSentEventError.self) { try await Self.collect(source) }
        #expect(script.requests.count == 1)
    }

    @Test("cancelling the consuming task ends iteration at once, even while the transport has not noticed")
    func cancellationIsImmediate() async throws {
        let gate = Gate()
        let script = EventStreamScript([.respond(chunks: ["data: a\n\n"], end: .openUntil(gate))])
        let source = Self.source(script)
        let (received, signal) = AsyncStream<Void>.makeStream()
        let consumer = Task {
            for try await _ in source { signal.yield() }
        }
        var receivedEvents = received.makeAsyncIterator()
        await receivedEvents.next()
        consumer.cancel()
        await #expect(throws: CancellationError.self) { try await consumer.value }
        gate.open() // Only now may the scripted body end; the consumer did not wait for it.
        var ends = script.ends.makeAsyncIterator()
        await ends.next()
        #expect(script.requests.count == 1, "the cancelled stream connected again")
    }

    @Test("cancelling the consuming task releases the connection")
    func cancellationReleasesConnection() async throws {
        let script = EventStreamScript([.respond(chunks: ["data: a\n\n"], end: .openUntilCancelled)])
        let source = Self.source(script)
        let (received, signal) = AsyncStream<Void>.makeStream()
        let consumer = Task {
            for try await _ in source { signal.yield() }
        }
        var receivedEvents = received.makeAsyncIterator()
        await receivedEvents.next()
        consumer.cancel()
        _ = await consumer.result
        var ends = script.ends.makeAsyncIterator()
        await ends.next() // The stream call returned: no task is left reading.
        #expect(script.requests.count == 1)
    }

    @Test("breaking out of the loop releases the connection")
    func breakReleasesConnection() async throws {
        let script = EventStreamScript([.respond(chunks: ["data: a\n\n"], end: .openUntilCancelled)])
        for try await event in Self.source(script) {
            #expect(event.data == "a")
            break
        }
        var ends = script.ends.makeAsyncIterator()
        await ends.next()
        #expect(script.requests.count == 1)
    }

    @Test("each iteration of the same EventSource makes its own connections")
    func iterationsAreIndependent() async throws {
        let script = EventStreamScript([
            .events("data: a\n\n"), .respond(status: 204, contentType: nil, chunks: []),
            .events("data: b\n\n"),
        ])
        let source = Self.source(script)
        #expect(try await Self.collect(source) == ["a"])
        #expect(try await Self.collect(source) == ["b"])
    }
}

extension Array {
    /// The elements of an async sequence, in order.
    init<S: AsyncSequence>(_ sequence: S) async throws where S.Element == Element {
        self = []
        for try await element in sequence { append(element) }
    }
}
