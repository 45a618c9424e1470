import Foundation
import Strata
@testable import StrataPinning
import Testing
import TLSTestServer
import TestTraits

/// Issue 21: a pinned server that repeats connection-level frames (GOAWAY, SETTINGS) after a
/// response head must not grow the client's memory or logs frame by frame until the deadline.
@Suite("HTTP2Multiplexer under a flood of repeated GOAWAY and SETTINGS frames", .onOwnThread)
struct HTTP2FrameFloodTests {
    typealias Harness = MultiplexerHarness

    /// How many repeated frames each test sends: 100,000, in batches the client answers between
    /// (nghttp2 ends a connection that owes more than 1,000 SETTINGS ACKs: a flood it does count).
    static let batchFrames = 500
    static let batches = 200

    /// Opens two exchanges (streams 1 and 3), serves SETTINGS (50 streams) and both response
    /// heads, then `batch`
    /// ``batches`` times, then the rest of both bodies with END_STREAM.
    private static func flood(_ batch: [UInt8]) throws -> Harness {
        let harness = try Harness()
        try harness.open(1, Harness.get("/a"))
        try harness.open(2, Harness.get("/b"))
        harness.clientFrames()
        harness.serve(
            .settings([(HTTP2Frame.maxConcurrentStreams, UInt32(50))]),
            .headers(stream: 1, Harness.ok), .headers(stream: 3, Harness.ok))
        harness.serve(bytes: batch, times: batches)
        harness.serve(.data(stream: 1, Array("a".utf8), endStream: true), .data(stream: 3, Array("b".utf8), endStream: true))
        return harness
    }

    private static func goAwayCount(_ events: [HTTP2Event]) -> Int {
        events.filter { if case .goAwayReceived = $0 { true } else { false } }.count
    }

    private static func settingsCount(_ events: [HTTP2Event]) -> Int {
        events.filter { if case .settingsReceived = $0 { true } else { false } }.count
    }

    @Test("100,000 GOAWAY frames naming the same last stream: both responses complete, one goAwayReceived per exchange, logs under the cap")
    func repeatedGoAway() throws {
        let batch = (0..<Self.batchFrames).flatMap { _ in
            HTTP2Frame.goAway(lastStream: 3, code: HTTP2ErrorCode.noError.rawValue).bytes
        }
        let harness = try Self.flood(batch)
        #expect(harness.response(1)?.body == Data("a".utf8))
        #expect(harness.response(2)?.body == Data("b".utf8))
        for id: UInt64 in [1, 2] {
            let events = harness.eventsByExchange[id] ?? []
            #expect(Self.goAwayCount(events) == 1)
            #expect(events.count <= HTTP2Multiplexer.maxEventsPerStream)
            #expect(events.last == .responseReceived(streamID: id == 1 ? 1 : 3, statusCode: 200, bodyBytes: 1))
        }
    }

    @Test("100,000 SETTINGS frames: both responses complete, the unchanged stream limit is recorded once, logs under the cap")
    func repeatedSettings() throws {
        let settings = HTTP2Frame.settings([(HTTP2Frame.maxConcurrentStreams, UInt32(50))]).bytes
        let batch = (0..<Self.batchFrames).flatMap { _ in settings }
        let harness = try Self.flood(batch)
        #expect(harness.response(1)?.body == Data("a".utf8))
        #expect(harness.response(2)?.body == Data("b".utf8))
        for id: UInt64 in [1, 2] {
            let events = harness.eventsByExchange[id] ?? []
            #expect(Self.settingsCount(events) == 1)
            #expect(events.count <= HTTP2Multiplexer.maxEventsPerStream)
        }
    }

    @Test("SETTINGS that keep changing the stream limit fill a log only up to maxEventsPerStream, the ending still recorded")
    func alternatingSettings() throws {
        let batch = (0..<Self.batchFrames).flatMap { index in
            HTTP2Frame.settings([(HTTP2Frame.maxConcurrentStreams, UInt32(50 + index % 2))]).bytes
        }
        let harness = try Self.flood(batch)
        for id: UInt64 in [1, 2] {
            let events = harness.eventsByExchange[id] ?? []
            #expect(events.count == HTTP2Multiplexer.maxEventsPerStream)
            #expect(events.last == .responseReceived(streamID: id == 1 ? 1 : 3, statusCode: 200, bodyBytes: 1))
        }
    }
}
