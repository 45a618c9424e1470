import Foundation
@testable import Strata
import StrataTesting
import Testing

@Suite("ETagTransport.stream: a 304 is answered from the store, a streamed 200 is kept as it is read")
struct ETagStreamTests {
    static let url = "https://api.example.com/report"
    static let tagged: HTTPHeaders = ["ETag": "\"v1\""]

    static func text(_ transport: ETagTransport, upTo limit: Int = 1 << 20) async throws -> (String, Int) {
        try await transport.stream(makeRequest(url)) { head, body in
            (String(decoding: try await body.collect(upTo: limit), as: UTF8.self), head.statusCode)
        }
    }

    @Test("a streamed 200 read to its end is stored, and the next 304 streams the stored body")
    func storedThenRevalidated() async throws {
        let inner = ScriptedStreamTransport([
            .init(statusCode: 200, headers: Self.tagged, chunks: [Array("hel".utf8), Array("lo".utf8)]),
            .status(304, headers: Self.tagged),
        ])
        let transport = ETagTransport(inner: inner)
        #expect(try await Self.text(transport) == ("hello", 200))
        #expect(try await Self.text(transport) == ("hello", 200))
        #expect(inner.requests.map { $0.headers["If-None-Match"] } == [nil, "\"v1\""])
    }

    @Test("a body the consumer stops reading is not stored: the next request is unconditional")
    func unfinishedNotStored() async throws {
        let inner = ScriptedStreamTransport([
            .init(statusCode: 200, headers: Self.tagged, chunks: [Array("first".utf8), Array("second".utf8)])
        ])
        let events = RecordingObserver()
        let transport = ETagTransport(inner: inner)
        let first = try await events.observing(transport).stream(makeRequest(Self.url)) { _, body in
            var iterator = body.makeAsyncIterator()
            return try await iterator.next().map { Array($0) } ?? []
        }
        #expect(first == Array("first".utf8))
        #expect(events.events(ETagEvent.self).contains(.notStored(URL(string: Self.url)!, reason: .streamedBodyUnfinished)))
        _ = try await Self.text(transport)
        #expect(inner.requests.map { $0.headers["If-None-Match"] } == [nil, nil])
    }

    @Test("a body past maxStreamedBodyBytes reaches the consumer whole and is not stored")
    func tooLargeNotStored() async throws {
        let inner = ScriptedStreamTransport([
            .init(statusCode: 200, headers: Self.tagged, chunks: [Array(repeating: 1, count: 6), Array(repeating: 2, count: 6)])
        ])
        let events = RecordingObserver()
        let transport = ETagTransport(inner: inner, maxStreamedBodyBytes: 10)
        let read = try await events.observing(transport).stream(makeRequest(Self.url)) { _, body in
            try await body.collect(upTo: 100).count
        }
        #expect(read == 12)
        #expect(events.events(ETagEvent.self).contains(.notStored(URL(string: Self.url)!, reason: .streamedBodyTooLarge)))
        _ = try await Self.text(transport)
        #expect(inner.requests.map { $0.headers["If-None-Match"] } == [nil, nil])
    }

    @Test("a 304 to a request without a validator is a typed error, as with send")
    func unexpected304() async throws {
        let transport = ETagTransport(inner: ScriptedStreamTransport([.status(304)]))
        let error = await #expect(throws: TransportError.self) { _ = try await Self.text(transport) }
        #expect(error?.kind == .invalidResponse)
    }

    @Test("entries stored by send are served to stream, and the other way round")
    func sendAndStreamShareEntries() async throws {
        let inner = ScriptedStreamTransport([.status(200, headers: Self.tagged, body: "shared"), .status(304, headers: Self.tagged)])
        let transport = ETagTransport(inner: inner)
        #expect(try await transport.send(makeRequest(Self.url)).text == "shared")
        #expect(try await Self.text(transport) == ("shared", 200))
    }

    @Test("a successful streamed POST invalidates the URL's entry")
    func postInvalidates() async throws {
        let inner = ScriptedStreamTransport([
            .status(200, headers: Self.tagged, body: "v1"), .status(201), .status(200, headers: Self.tagged, body: "v2"),
        ])
        let transport = ETagTransport(inner: inner)
        _ = try await Self.text(transport)
        _ = try await transport.stream(makeRequest(Self.url, method: "POST")) { head, _ in head.statusCode }
        #expect(try await Self.text(transport) == ("v2", 200))
        #expect(inner.requests.last?.headers["If-None-Match"] == nil)
    }

    @Test("RFC 5861 §4: a streamed 503 past the stale-if-error window reaches the caller with its own body, not an empty one")
    func streamed5xxPastWindowKeepsBody() async throws {
        let clock = TestClock()
        let inner = ScriptedStreamTransport([
            .status(200, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=10, stale-if-error=60"], body: "stored"),
            .status(503, headers: ["Content-Length": "11"], body: "maintenance"),
        ])
        let transport = ETagTransport(inner: inner, clock: clock, wallClockOrigin: Date(timeIntervalSince1970: 1_700_000_000))
        _ = try await Self.text(transport)
        clock.advance(by: .seconds(100))
        #expect(try await Self.text(transport) == ("maintenance", 503))
    }
}
