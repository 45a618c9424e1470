import Foundation
import Strata
@testable import StrataPinning
import Testing
import TestTraits

@Suite("HTTP1ResponseParser refuses malformed responses with typed errors", .onOwnThread)
struct HTTP1ResponseParserErrorTests {
    private func error(
        _ text: String, method: HTTPMethod = .get, limits: HTTPLimits = .default,
        pieceSize: Int? = nil
    ) -> HTTP1ResponseError? {
        error(Array(text.utf8), method: method, limits: limits, pieceSize: pieceSize)
    }

    private func error(
        _ bytes: [UInt8], method: HTTPMethod = .get, limits: HTTPLimits = .default,
        pieceSize: Int? = nil
    ) -> HTTP1ResponseError? {
        do {
            _ = try parseResponse(bytes, method: method, limits: limits, pieceSize: pieceSize)
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "a bad status line is invalidStatusLine, quoting the line with control bytes escaped",
        arguments: ["HTP/1.1 200 OK", "garbage", "HTTP/1.1 200 O\u{1}K", "", "http/1.1 200 OK"])
    func badStatusLine(line: String) {
        let failure = error("\(line)\r\nContent-Length: 0\r\n\r\n")
        guard case .invalidStatusLine(let excerpt) = failure else {
            Issue.record("expected invalidStatusLine, got \(String(describing: failure))")
            return
        }
        #expect(!excerpt.contains("\u{1}"))
    }

    @Test(
        "a status code that is not three digits in 100–599 is invalidStatusCode, by the rule HTTP/2 follows too",
        arguments: [
            ("HTTP/1.1 2OO OK", HTTPStatusCodeRule.Violation.notThreeDigits(shown: "\"2OO\"")),
            ("HTTP/1.1 200OK", .notThreeDigits(shown: "\"200OK\"")),
            ("HTTP/1.1  200 OK", .notThreeDigits(shown: "\"\"")),
            ("HTTP/1.1 600 Nope", .outOfRange(shown: "\"600\"")),
            ("HTTP/1.1 099 Low", .outOfRange(shown: "\"099\"")),
        ])
    func badStatusCode(line: String, violation: HTTPStatusCodeRule.Violation) {
        #expect(error("\(line)\r\nContent-Length: 0\r\n\r\n") == .invalidStatusCode(violation))
    }

    @Test("a version other than HTTP/1.x is unsupportedVersion")
    func otherVersion() {
        #expect(error("HTTP/2.0 200 OK\r\n\r\n") == .unsupportedVersion(excerpt: "\"HTTP/2.0\""))
    }

    @Test("101 Switching Protocols is an error: no upgrade was asked for")
    func switchingProtocols() {
        #expect(error("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n") == .unexpectedSwitchingProtocols)
    }

    @Test(
        "a bad chunk size is invalidChunkSize",
        arguments: ["zz", "-1", "", " 5", "5x", "0x5", "FFFFFFFFFFFFFFFFF", "5;\u{1}"])
    func badChunkSize(line: String) {
        let failure = error("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\(line)\r\nhello\r\n0\r\n\r\n")
        guard case .invalidChunkSize = failure else {
            Issue.record("expected invalidChunkSize for \(line.debugDescription), got \(String(describing: failure))")
            return
        }
    }

    @Test("a chunk-size line longer than the limit is chunkSizeLineTooLong, even before its end arrives")
    func chunkSizeLineTooLong() {
        let limits = HTTPLimits(maxChunkSizeLineBytes: 64)
        let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;" + String(repeating: "x", count: 100)
        #expect(error(head, limits: limits) == .chunkSizeLineTooLong(limit: 64))
    }

    @Test("chunk data not followed by CRLF is invalidChunkTerminator")
    func missingChunkTerminator() {
        #expect(error("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n") == .invalidChunkTerminator)
        #expect(error("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\rX0\r\n\r\n") == .invalidChunkTerminator)
    }

    @Test("a header section over the byte limit is headerBlockTooLarge, whether or not a line end arrives")
    func oversizedHeaders() {
        let big = String(repeating: "a", count: 70 * 1024)
        #expect(error("HTTP/1.1 200 OK\r\nX-Big: \(big)\r\n\r\n") == .headerBlockTooLarge(limit: 64 * 1024))
        // A server that never sends a line end is stopped at the limit, not read forever.
        #expect(error("HTTP/1.1 200 OK\r\nX-Big: \(big)", pieceSize: 4096) == .headerBlockTooLarge(limit: 64 * 1024))
        let many = (1...60).map { "X-Field-\($0): \(String(repeating: "v", count: 30))\r\n" }.joined()
        #expect(
            error("HTTP/1.1 200 OK\r\n\(many)\r\n", limits: HTTPLimits(maxHeaderBlockBytes: 1024))
                == .headerBlockTooLarge(limit: 1024))
    }

    @Test("trailers over the byte limit are headerBlockTooLarge")
    func oversizedTrailers() {
        let big = String(repeating: "t", count: 2000)
        #expect(
            error(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: \(big)\r\n\r\n",
                limits: HTTPLimits(maxHeaderBlockBytes: 1024)) == .headerBlockTooLarge(limit: 1024))
    }

    @Test("more header fields than the limit is tooManyHeaders")
    func tooManyHeaders() {
        let fields = (1...101).map { "X-\($0): v\r\n" }.joined()
        #expect(error("HTTP/1.1 200 OK\r\n\(fields)Content-Length: 0\r\n\r\n") == .tooManyHeaders(limit: 100))
        #expect(
            error("HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: HTTPLimits(maxHeaderCount: 2))
                == .tooManyHeaders(limit: 2))
    }

    @Test("more interim responses than the limit is tooManyInterimResponses")
    func tooManyInterimResponses() {
        let interim = String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 17)
        #expect(error(interim + "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") == .tooManyInterimResponses(limit: 16))
    }

    @Test("a body over the limit is bodyTooLarge for every framing")
    func bodyOverLimit() {
        let limits = HTTPLimits(maxResponseBodyBytes: 4)
        // Announced too large: refused at the head, before any body byte is read.
        #expect(error("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", limits: limits) == .bodyTooLarge(limit: 4))
        #expect(
            error("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n", limits: limits)
                == .bodyTooLarge(limit: 4))
        #expect(error("HTTP/1.1 200 OK\r\n\r\nabcde", limits: limits) == .bodyTooLarge(limit: 4))
        #expect(error("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999\r\n\r\n") == .bodyTooLarge(limit: 64 * 1024 * 1024))
    }

    @Test("end of stream before the Content-Length body is complete is truncatedBody with both counts")
    func truncatedContentLengthBody() {
        #expect(error("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc") == .truncatedBody(expectedBytes: 10, receivedBytes: 3))
    }

    @Test("end of stream inside a chunked body is truncatedChunkedBody, at every point before the final CRLF")
    func truncatedChunkedBody() {
        let full = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-T: 1\r\n\r\n"
        let headLength = 49
        for cut in headLength..<(full.utf8.count - 1) {
            let failure = error(Array(full.utf8.prefix(cut)))
            guard case .truncatedChunkedBody = failure else {
                Issue.record("cut at \(cut): expected truncatedChunkedBody, got \(String(describing: failure))")
                continue
            }
        }
    }

    @Test("end of stream with no byte is closedBeforeResponse; inside the head it is truncatedHead")
    func truncatedHead() {
        #expect(error("") == .closedBeforeResponse)
        #expect(error("HTTP/1.1 200 OK\r\nContent-") == .truncatedHead(receivedBytes: 25))
        #expect(error("HTTP/1.1 100 Continue\r\n\r\n") == .truncatedHead(receivedBytes: 0))
    }

    @Test("different Content-Length values are conflictingContentLength")
    func conflictingContentLength() {
        #expect(
            error("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!")
                == .conflictingContentLength(first: 5, second: 6))
        #expect(error("HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\nhello!") == .conflictingContentLength(first: 5, second: 6))
    }

    @Test(
        "a Content-Length that is not a decimal number is invalidContentLength",
        arguments: ["abc", "-1", "", "1 2", "+5", "0x10", "5,", "1234567890123456789"])
    func invalidContentLength(value: String) {
        let failure = error("HTTP/1.1 200 OK\r\nContent-Length: \(value)\r\n\r\n")
        guard case .invalidContentLength = failure else {
            Issue.record("expected invalidContentLength for \(value.debugDescription), got \(String(describing: failure))")
            return
        }
    }

    @Test("obsolete line folding is refused with obsoleteLineFolding")
    func obsFold() {
        let failure = error("HTTP/1.1 200 OK\r\nX-Long: first\r\n  continued\r\nContent-Length: 0\r\n\r\n")
        #expect(failure == .obsoleteLineFolding(excerpt: "\"  continued\""))
        #expect(error("HTTP/1.1 200 OK\r\n\tX: 1\r\n\r\n") == .obsoleteLineFolding(excerpt: "\"\\x09X: 1\""))
    }

    @Test(
        "a malformed header line is invalidHeaderField",
        arguments: [
            "No colon here", "Bad Name: x", "X-Space : 1", ": empty name", "X-Nul: a\u{0}b", "X-Cr: a\rb",
            "X-Del: a\u{7F}", "Ünïcode: x",
        ])
    func invalidHeaderField(line: String) {
        let failure = error("HTTP/1.1 200 OK\r\n\(line)\r\nContent-Length: 0\r\n\r\n")
        guard case .invalidHeaderField = failure else {
            Issue.record("expected invalidHeaderField for \(line.debugDescription), got \(String(describing: failure))")
            return
        }
    }

    @Test(
        "a transfer coding other than exactly chunked is unsupportedTransferEncoding",
        arguments: ["gzip", "gzip, chunked", "chunked, chunked", "chunked;foo=bar"])
    func unsupportedTransferEncoding(value: String) {
        let failure = error("HTTP/1.1 200 OK\r\nTransfer-Encoding: \(value)\r\n\r\n0\r\n\r\n")
        guard case .unsupportedTransferEncoding = failure else {
            Issue.record("expected unsupportedTransferEncoding for \(value), got \(String(describing: failure))")
            return
        }
    }

    @Test("after an error the parser stays failed with the same error")
    func staysFailed() throws {
        var parser = HTTP1ResponseParser()
        parser.expectResponse(to: .get)
        #expect(throws: HTTP1ResponseError.invalidStatusLine(excerpt: "\"nonsense\"")) {
            try parser.feed(Array("nonsense\r\n".utf8))
        }
        #expect(throws: HTTP1ResponseError.invalidStatusLine(excerpt: "\"nonsense\"")) {
            try parser.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8))
        }
        #expect(throws: HTTP1ResponseError.invalidStatusLine(excerpt: "\"nonsense\"")) { try parser.finish() }
    }

    @Test("every error describes itself in a sentence that names the limit or quotes the bytes")
    func descriptions() {
        #expect(HTTP1ResponseError.headerBlockTooLarge(limit: 1024).description.contains("maxHeaderBlockBytes"))
        #expect(HTTP1ResponseError.truncatedBody(expectedBytes: 10, receivedBytes: 3).description.contains("3 of 10"))
        #expect(HTTP1ResponseError.invalidStatusLine(excerpt: "\"x\"").description.contains("\"x\""))
        #expect(HTTP1ResponseError.truncatedBody(expectedBytes: 1, receivedBytes: 0).isTruncation)
        #expect(!HTTP1ResponseError.invalidChunkTerminator.isTruncation)
    }
}
