import Foundation
import Strata
@testable import StrataPinning
import Testing

/// The parser's streaming mode: the head at once, the body as it is parsed, the same bytes and
/// trailers as the buffered mode, and every limit but the body cap.
@Suite("HTTP1ResponseParser streams a body")
struct HTTP1ResponseParserStreamingTests {
    /// What streaming `bytes` in pieces of `pieceSize` gave: the head, the body, the final response.
    struct Streamed {
        var head: HTTP1Response?
        var body = Data()
        var end: HTTP1Response?
    }

    static func stream(_ text: String, pieceSize: Int, limits: HTTPLimits = .default) throws(HTTP1ResponseError) -> Streamed {
        let bytes = Array(text.utf8)
        var parser = HTTP1ResponseParser(limits: limits)
        parser.expectResponse(to: .get, streamingBody: true)
        var streamed = Streamed()
        var offset = 0
        func take(_ response: HTTP1Response?, _ parser: inout HTTP1ResponseParser, _ streamed: inout Streamed) {
            streamed.body += parser.takeBodyBytes()
            guard let response else { return }
            if streamed.head == nil {
                streamed.head = response
                if parser.isIdle { streamed.end = response }
            } else {
                streamed.body += response.body
                streamed.end = response
            }
        }
        while offset < bytes.count, streamed.end == nil {
            let end = min(offset + pieceSize, bytes.count)
            take(try parser.feed(bytes[offset..<end]), &parser, &streamed)
            // A piece may hold the head and body bytes after it: parse on until nothing moves.
            while streamed.end == nil, let response = try parser.parse() { take(response, &parser, &streamed) }
            take(nil, &parser, &streamed)
            offset = end
        }
        if streamed.end == nil { take(try parser.finish(), &parser, &streamed) }
        return streamed
    }

    static let responses = [
        "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;x=y\r\n world\r\n0\r\nDigest: abc\r\n\r\n",
        "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nhello world",
        "HTTP/1.1 204 No Content\r\n\r\n",
    ]

    @Test(
        "streamed in any pieces, a body gives the buffered mode's head, bytes and trailers",
        arguments: responses, [1, 3, 1 << 16])
    func sameAsBuffered(text: String, pieceSize: Int) throws {
        let buffered = try parseResponse(text)
        let streamed = try Self.stream(text, pieceSize: pieceSize)
        let head = try #require(streamed.head)
        #expect(head.statusCode == buffered.statusCode)
        #expect(head.headers == buffered.headers)
        #expect(head.framing == buffered.framing)
        #expect(head.body.isEmpty)
        #expect(streamed.body == buffered.body)
        #expect(streamed.end?.trailers == buffered.trailers)
        #expect(streamed.end?.keepAlive == buffered.keepAlive)
    }

    @Test("a streamed body is not capped by maxResponseBodyBytes; chunk-size lines still are")
    func limits() throws {
        let limits = HTTPLimits(maxResponseBodyBytes: 4, maxChunkSizeLineBytes: 8)
        #expect(
            try Self.stream(
                "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world", pieceSize: 4,
                limits: limits
            ).body == Data("hello world".utf8))
        #expect(throws: HTTP1ResponseError.chunkSizeLineTooLong(limit: 8)) {
            try Self.stream(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;long-extension\r\nhello\r\n0\r\n\r\n",
                pieceSize: 4, limits: limits)
        }
    }
}
