#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
@testable import StrataPinning
import Testing

/// A streamed body is handed to its reader a piece at a time, and each piece wakes the reader:
/// a piece gathers what has already arrived (up to a limit) instead of one per read, and never
/// waits for more.
@Suite("HTTP1Connection gathers what has already arrived into one body piece")
struct HTTP1BodyGatheringTests {
    private let farDeadline = ContinuousClock.now + .seconds(3600)

    /// The pieces of the body of `script`'s response (its head first), read with `limit`; a
    /// failure ends the list as "error <kind>".
    private func pieces(_ script: [ScriptedByteStream.Step], gatheringLimit limit: Int) throws -> [String] {
        let stream = ScriptedByteStream(script)
        var connection = HTTP1Connection(stream: stream)
        let request = try HTTP1RequestEncoder.encode(HTTPRequest(url: URL(string: "http://example.test/")!))
        _ = try connection.sendStreaming(request, deadline: farDeadline)
        var pieces: [String] = []
        while connection.isReadingBody {
            do throws(HTTP1ExchangeError) {
                switch try connection.nextBodyPart(deadline: farDeadline, gatheringLimit: limit) {
                case .bytes(let bytes): pieces.append(String(decoding: bytes, as: UTF8.self))
                case .end(let response): pieces.append("end " + String(decoding: response.body, as: UTF8.self))
                }
            } catch {
                pieces.append("error \(error.error.kind)")
            }
        }
        return pieces
    }

    /// A 12-byte body sent as "aaa", "bbb", a pause, "ccc", "ddd", read with `limit`.
    private func pieces(gatheringLimit limit: Int) throws -> [String] {
        try pieces(
            [
                .text("HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n"), .text("aaa"), .text("bbb"), .pause, .text("ccc"),
                .text("ddd"),
            ], gatheringLimit: limit)
    }

    @Test("bytes that are already there join the piece; bytes after a pause start the next one, and the end takes the last")
    func gathersUpToAPause() throws {
        #expect(try pieces(gatheringLimit: 1 << 20) == ["aaabbb", "end cccddd"])
    }

    @Test("without a limit each read is its own piece, as before")
    func noGathering() throws {
        #expect(try pieces(gatheringLimit: 0) == ["aaa", "bbb", "ccc", "end ddd"])
    }

    @Test("a piece stops gathering once it holds the limit")
    func limitBoundsAPiece() throws {
        #expect(try pieces(gatheringLimit: 3) == ["aaa", "bbb", "ccc", "end ddd"])
        #expect(try pieces(gatheringLimit: 4) == ["aaabbb", "end cccddd"])
    }

    @Test("chunked framing split across reads is gathered the same way, the last chunk with the end")
    func chunked() throws {
        let script: [ScriptedByteStream.Step] = [
            .text("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"), .text("3\r\naaa\r\n3\r\nb"), .text("bb\r\n"), .pause,
            .text("3\r\nccc\r\n0\r\n\r\n"),
        ]
        #expect(try pieces(script, gatheringLimit: 1 << 20) == ["aaabbb", "end ccc"])
    }

    @Test("a body that ends at the close: what arrived before the end is one piece, then the end")
    func readUntilClose() throws {
        let script: [ScriptedByteStream.Step] = [.text("HTTP/1.1 200 OK\r\n\r\n"), .text("aaa"), .text("bbb")]
        #expect(try pieces(script, gatheringLimit: 1 << 20) == ["aaabbb", "end "])
    }

    @Test("bytes that arrived before a reset reach the reader, then the reset does")
    func bytesThenReset() throws {
        let script: [ScriptedByteStream.Step] = [
            .text("HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n"), .text("aaa"),
            .failure(TransportError(.connectionLost, message: "reset by peer")),
        ]
        #expect(try pieces(script, gatheringLimit: 1 << 20) == ["aaa", "error connectionLost"])
    }

    @Test("bytes that arrived before a malformed chunk reach the reader, then the error does")
    func bytesThenMalformedChunk() throws {
        let script: [ScriptedByteStream.Step] = [
            .text("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"), .text("3\r\naaa\r\n"), .text("zz\r\n"),
        ]
        #expect(try pieces(script, gatheringLimit: 1 << 20) == ["aaa", "error invalidResponse"])
    }
}
