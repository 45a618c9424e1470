import Foundation
import Strata
@testable import StrataPinning
import Testing
import TestServer
import TLSTestServer

/// The frame-to-response mapping under fuzzing, as the HTTP/1.1 parser is: valid server frame
/// sequences for several streams, mutated and fed in random pieces, with the clock, cancellations
/// and the client's own output interleaved. Whatever arrives, every exchange ends exactly once,
/// as a response within the limits or a typed failure, and nothing crashes or hangs.
@Suite("HTTP2Multiplexer under fuzzing")
struct HTTP2MultiplexerFuzzTests {
    /// Bytes that matter to HTTP/2 framing and HPACK: frame types, flags, length and stream
    /// identifier edges, HPACK representation prefixes.
    private static let mutator = ByteMutator(interestingBytes: [
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x0A, 0x20, 0x3F, 0x40,
        0x7F, 0x80, 0x88, 0xBE, 0xFF, UInt8(ascii: ":"),
    ])

    private static let fieldNames = ["content-type", "etag", "cache-control", "x-request-id", "set-cookie", "vary"]

    /// A valid server side for streams 1, 3, 5, ...: the preface, then each stream's response
    /// (maybe an interim block, a head, DATA pieces, maybe trailers), streams interleaved, with
    /// PING, WINDOW_UPDATE and header blocks split into CONTINUATION frames here and there.
    private static func validServer(streams: Int, using random: inout SeededGenerator) -> [UInt8] {
        // Each unit is sent as a whole: a header block's CONTINUATION frames must follow its
        // HEADERS frame with nothing in between (RFC 9113 §6.10).
        var perStream: [[[HTTP2Frame]]] = []
        for index in 0..<streams {
            let streamID = UInt32(2 * index + 1)
            var frames: [[HTTP2Frame]] = []
            if Int.random(in: 0..<5, using: &random) == 0 {
                frames.append([.headers(stream: streamID, [(":status", "103"), ("link", "</a.css>; rel=preload")])])
            }
            let status = ["200", "201", "204", "404", "500"].randomElement(using: &random) ?? "200"
            // A 204 has no content (RFC 9110 §15.3.5).
            let body =
                status == "204"
                ? []
                : (0..<Int.random(in: 0...3, using: &random)).map { _ in
                    [UInt8]((0..<Int.random(in: 0...40, using: &random)).map { _ in UInt8.random(in: 0x20...0x7E, using: &random) })
                }
            var fields = [(":status", status)]
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                fields.append((fieldNames.randomElement(using: &random) ?? "etag", "v\(Int.random(in: 0...999, using: &random))"))
            }
            if status != "204", Bool.random(using: &random) { fields.append(("content-length", String(body.joined().count))) }
            let trailers = Int.random(in: 0..<4, using: &random) == 0
            let endsWithHead = body.isEmpty && !trailers
            frames.append(headerFrames(stream: streamID, fields, endStream: endsWithHead, using: &random))
            for (position, piece) in body.enumerated() {
                frames.append([.data(stream: streamID, piece, endStream: position == body.count - 1 && !trailers)])
            }
            if trailers {
                frames.append([.headers(stream: streamID, [("x-checksum", "abc")], endStream: true)])
            } else if !endsWithHead, body.isEmpty {
                frames.append([.data(stream: streamID, [], endStream: true)])
            }
            perStream.append(frames)
        }
        var bytes = HTTP2Frame.settings([(HTTP2Frame.maxConcurrentStreams, 100)]).bytes + HTTP2Frame.settings(ack: true).bytes
        while perStream.contains(where: { !$0.isEmpty }) {
            let candidates = perStream.indices.filter { !perStream[$0].isEmpty }
            let pick = candidates.randomElement(using: &random) ?? 0
            bytes += perStream[pick].removeFirst().flatMap(\.bytes)
            switch Int.random(in: 0..<12, using: &random) {
            case 0: bytes += HTTP2Frame.ping().bytes
            case 1: bytes += HTTP2Frame.windowUpdate(stream: 0, increment: 1024).bytes
            default: break
            }
        }
        if Bool.random(using: &random) { bytes += HTTP2Frame.goAway(lastStream: UInt32(2 * streams - 1), code: 0).bytes }
        return bytes
    }

    /// A HEADERS frame, or HEADERS plus CONTINUATION frames carrying the same block in pieces.
    private static func headerFrames(
        stream: UInt32, _ fields: [(String, String)], endStream: Bool,
        using random: inout SeededGenerator
    ) -> [HTTP2Frame] {
        let block = HTTP2Frame.headerBlock(fields)
        guard block.count > 8, Bool.random(using: &random) else {
            return [.headers(stream: stream, fields, endStream: endStream)]
        }
        let split = Int.random(in: 1..<block.count, using: &random)
        return [
            HTTP2Frame(.headers, flags: endStream ? HTTP2Frame.endStream : 0, streamID: stream, payload: Array(block[..<split])),
            HTTP2Frame(.continuation, flags: HTTP2Frame.endHeaders, streamID: stream, payload: Array(block[split...])),
        ]
    }

    /// What a fuzz run saw; checked in the test's own task (an expectation recorded on another
    /// thread would belong to no test).
    private struct Summary: Sendable {
        var responses = 0
        var failures = 0
        var violations: [String] = []

        mutating func expect(_ condition: Bool, _ what: @autoclosure () -> String) {
            if !condition, violations.count < 20 { violations.append(what()) }
        }
    }

    @Test("2,000 mutated frame sequences for several streams end every exchange exactly once, within the limits")
    func mutatedFrameSequences() async throws {
        // Seconds of CPU: on a thread of its own, so the suite's cooperative threads stay free.
        let summary = try await offCooperativePool { try Self.runMutatedFrameSequences() }
        #expect(summary.violations.isEmpty, "\(summary.violations.joined(separator: "\n"))")
        // Both paths were exercised substantially; otherwise the mutations are too weak or too strong.
        #expect(summary.responses > 500)
        #expect(summary.failures > 1_000)
    }

    private static func runMutatedFrameSequences() throws -> Summary {
        var random = SeededGenerator(seed: 0x5EED_0002)
        var summary = Summary()
        for iteration in 0..<2_000 {
            let limits = HTTPLimits(
                maxHeaderBlockBytes: Int.random(in: 96...1024, using: &random),
                maxHeaderCount: Int.random(in: 2...8, using: &random),
                maxResponseBodyBytes: Int.random(in: 0...160, using: &random),
                maxInterimResponses: Int.random(in: 0...2, using: &random))
            let harness = try MultiplexerHarness(
                limits: limits, idleTimeout: .seconds(Int64.random(in: 1...5, using: &random)),
                pingInterval: .seconds(Int64.random(in: 1...5, using: &random)))
            let streams = Int.random(in: 1...4, using: &random)
            for id in 0..<streams {
                let request =
                    Bool.random(using: &random)
                    ? MultiplexerHarness.get("/\(id)")
                    : MultiplexerHarness.post("/\(id)", body: Data(repeating: 0x61, count: Int.random(in: 0...200, using: &random)))
                try harness.open(UInt64(id), request, timeout: .seconds(Int64.random(in: 2...20, using: &random)))
            }
            harness.clientFrames()
            let valid = Self.validServer(streams: streams, using: &random)
            // One in five stays valid, so the mapping of correct sequences is fuzzed too.
            let input = Int.random(in: 0..<5, using: &random) == 0 ? valid : Self.mutator.mutate(valid, using: &random)
            var cancelled: Set<UInt64> = []
            var offset = 0
            while offset < input.count {
                let end = min(input.count, offset + Int.random(in: 1...64, using: &random))
                harness.serve(bytes: Array(input[offset..<end]))
                offset = end
                switch Int.random(in: 0..<40, using: &random) {
                case 0: harness.advance(by: .milliseconds(Int64.random(in: 1...2_000, using: &random)))
                case 1:
                    let id = UInt64.random(in: 0..<UInt64(streams), using: &random)
                    if harness.results[id] == nil { cancelled.insert(id) }
                    harness.cancel(id)
                case 2: harness.clientFrames()
                default: break
                }
            }
            harness.clientFrames()
            harness.closeTransport()
            summary.expect(harness.finishedTwice.isEmpty, "iteration \(iteration): exchanges \(harness.finishedTwice) ended twice")
            summary.expect(harness.multiplexer.openStreamCount == 0, "iteration \(iteration): streams left open")
            for id in 0..<UInt64(streams) where !cancelled.contains(id) {
                switch harness.results[id] {
                case let .success(response)?:
                    summary.responses += 1
                    check(response, limits, iteration: iteration, into: &summary)
                case let .failure(failure)?:
                    summary.failures += 1
                    check(failure, iteration: iteration, into: &summary)
                case nil:
                    summary.expect(false, "iteration \(iteration): exchange \(id) never ended")
                }
            }
            // A cancelled exchange (still open when cancelled) is never reported.
            for id in cancelled {
                summary.expect(harness.results[id] == nil, "iteration \(iteration): cancelled exchange \(id) reported")
            }
        }
        return summary
    }

    @Test("random bytes after a valid preface are refused or parsed, never crash")
    func randomBytes() async throws {
        let summary = try await offCooperativePool { try Self.runRandomBytes() }
        #expect(summary.violations.isEmpty, "\(summary.violations.joined(separator: "\n"))")
    }

    private static func runRandomBytes() throws -> Summary {
        var random = SeededGenerator(seed: 42)
        var summary = Summary()
        for _ in 0..<1_000 {
            let harness = try MultiplexerHarness(limits: HTTPLimits(maxHeaderBlockBytes: 256, maxResponseBodyBytes: 64))
            try harness.open(0, MultiplexerHarness.get("/"))
            harness.clientFrames()
            let noise = (0..<Int.random(in: 0...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            harness.serve(bytes: HTTP2Frame.settings().bytes + noise)
            harness.clientFrames()
            harness.closeTransport()
            summary.expect(harness.results[0] != nil, "the exchange never ended")
            summary.expect(harness.finishedTwice.isEmpty, "the exchange ended twice")
        }
        return summary
    }

    private static func check(_ response: HTTP2Response, _ limits: HTTPLimits, iteration: Int, into summary: inout Summary) {
        summary.expect(response.body.count <= limits.maxResponseBodyBytes, "iteration \(iteration): body over the limit")
        summary.expect(response.headers.count <= limits.maxHeaderCount, "iteration \(iteration): too many header fields")
        summary.expect(response.trailers.count <= limits.maxHeaderCount, "iteration \(iteration): too many trailer fields")
        summary.expect(response.interimStatusCodes.count <= limits.maxInterimResponses, "iteration \(iteration): too many 1xx")
        summary.expect((200...999).contains(response.statusCode), "iteration \(iteration): status \(response.statusCode)")
    }

    private static func check(_ failure: HTTP2StreamFailure, iteration: Int, into summary: inout Summary) {
        let kinds: Set<TransportError.Kind> = [.invalidResponse, .connectionLost, .timedOut, .invalidRequest]
        summary.expect(kinds.contains(failure.error.kind), "iteration \(iteration): \(failure.error)")
        summary.expect(failure.error.url != nil, "iteration \(iteration): no URL in \(failure.error)")
    }
}
