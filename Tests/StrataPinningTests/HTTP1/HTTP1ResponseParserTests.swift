import Foundation
import Strata
@testable import StrataPinning
import Testing
import TestServer

@Suite("HTTP1ResponseParser reads valid responses")
struct HTTP1ResponseParserTests {
    @Test("a Content-Length body is read exactly and the HTTP/1.1 connection stays reusable")
    func contentLength() throws {
        let response = try parseResponse("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello")
        #expect(response.statusCode == 200)
        #expect(response.version == .http1_1)
        #expect(response.body == Data("hello".utf8))
        #expect(response.framing == .contentLength(5))
        #expect(response.keepAlive)
        #expect(response.headers["content-type"] == "text/plain")
    }

    @Test("the response completes as soon as the last body byte arrives, without waiting for end of stream")
    func completesWithoutEOF() throws {
        var parser = HTTP1ResponseParser()
        parser.expectResponse(to: .get)
        #expect(try parser.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\no".utf8)) == nil)
        #expect(try parser.feed(Array("k".utf8))?.body == Data("ok".utf8))
    }

    @Test("the reason phrase is optional and may contain spaces")
    func reasonPhrase() throws {
        #expect(try parseResponse("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n").statusCode == 200)
        #expect(try parseResponse("HTTP/1.1 404 \r\nContent-Length: 0\r\n\r\n").statusCode == 404)
        #expect(try parseResponse("HTTP/1.1 503 Service Temporarily Unavailable\r\nContent-Length: 0\r\n\r\n").statusCode == 503)
    }

    @Test("header fields keep order and repeats, compare names case-insensitively and lose surrounding whitespace")
    func headerFields() throws {
        let response = try parseResponse(
            "HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nX-Pad: \t padded \t\r\n"
                + "set-cookie: b=2\r\nX-Empty:\r\nContent-Length: 0\r\n\r\n")
        #expect(response.headers.values(for: "Set-Cookie") == ["a=1", "b=2"])
        #expect(response.headers["x-pad"] == "padded")
        #expect(response.headers["X-Empty"] == "")
        #expect(response.headers.count == 5)
    }

    @Test("bare LF line endings are accepted (RFC 9112 §2.2)")
    func bareLineFeeds() throws {
        let response = try parseResponse("HTTP/1.1 200 OK\nContent-Length: 2\n\nok")
        #expect(response.body == Data("ok".utf8))
    }

    @Test("HTTP/1.1 with Connection: close is not reusable")
    func connectionClose() throws {
        #expect(try !parseResponse("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n").keepAlive)
        #expect(try !parseResponse("HTTP/1.1 200 OK\r\nConnection: foo, Close\r\nContent-Length: 0\r\n\r\n").keepAlive)
    }

    @Test("HTTP/1.0 is reusable only with Connection: keep-alive")
    func http10KeepAlive() throws {
        let plain = try parseResponse("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok")
        #expect(plain.version == .http1_0)
        #expect(!plain.keepAlive)
        #expect(try parseResponse("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok").keepAlive)
    }

    @Test("a chunked body is joined, chunk extensions are ignored and trailers are kept apart")
    func chunked() throws {
        let response = try parseResponse(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;name=value\r\nhello\r\n6 ; quoted=\"a b\"\r\n world\r\nA\r\n0123456789\r\n"
                + "0\r\nX-Checksum: abc\r\nX-Other: 1\r\n\r\n")
        #expect(response.text == "hello world0123456789")
        #expect(response.framing == .chunked)
        #expect(response.trailers["x-checksum"] == "abc")
        #expect(response.trailers.count == 2)
        #expect(response.headers["X-Checksum"] == nil)
        #expect(response.keepAlive)
    }

    @Test("Transfer-Encoding chunked wins over Content-Length, and the connection is then not reused")
    func chunkedWinsOverContentLength() throws {
        let response = try parseResponse(
            "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: Chunked\r\n\r\n"
                + "3\r\nabc\r\n0\r\n\r\n")
        #expect(response.text == "abc")
        #expect(response.framing == .chunked)
        #expect(!response.keepAlive)
    }

    @Test("HTTP/1.0 with Transfer-Encoding is read as chunked but the connection is not reused (RFC 9112 §6.1)")
    func http10Chunked() throws {
        let response = try parseResponse(
            "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "2\r\nok\r\n0\r\n\r\n")
        #expect(response.text == "ok")
        #expect(!response.keepAlive)
    }

    @Test("without Content-Length or chunked the body runs until the connection closes, which ends reuse")
    func closeDelimited() throws {
        var parser = HTTP1ResponseParser()
        parser.expectResponse(to: .get)
        #expect(try parser.feed(Array("HTTP/1.1 200 OK\r\n\r\nsome ".utf8)) == nil)
        #expect(try parser.feed(Array("bytes".utf8)) == nil)
        let response = try parser.finish()
        #expect(response.text == "some bytes")
        #expect(response.framing == .untilClose)
        #expect(!response.keepAlive)
    }

    @Test("a response to HEAD has no body even with Content-Length, and the connection stays reusable")
    func head() throws {
        var parser = HTTP1ResponseParser()
        parser.expectResponse(to: .head)
        let response = try parser.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n".utf8))
        #expect(response?.body.isEmpty == true)
        #expect(response?.framing == HTTP1Response.Framing.none)
        #expect(response?.keepAlive == true)
        #expect(parser.bufferedByteCount == 0)
    }

    @Test("204 and 304 have no body whatever their headers say")
    func noContentStatuses() throws {
        for status in [204, 304] {
            var parser = HTTP1ResponseParser()
            parser.expectResponse(to: .get)
            let response = try parser.feed(Array("HTTP/1.1 \(status) X\r\nContent-Length: 5\r\nTransfer-Encoding: gzip\r\n\r\n".utf8))
            #expect(response?.statusCode == status)
            #expect(response?.body.isEmpty == true)
            #expect(response?.keepAlive == true)
        }
    }

    @Test("100 Continue and 103 Early Hints are skipped and the final response is returned")
    func interimResponses() throws {
        let response = try parseResponse(
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </style.css>\r\n\r\n"
                + "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok")
        #expect(response.statusCode == 201)
        #expect(response.interimStatusCodes == [100, 103])
        #expect(response.headers["Link"] == nil)
        #expect(response.text == "ok")
    }

    @Test("Content-Length repeated with the same value is accepted (RFC 9110 §8.6)")
    func repeatedContentLength() throws {
        #expect(try parseResponse("HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok").text == "ok")
        #expect(try parseResponse("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok").text == "ok")
    }

    @Test("two responses in one buffer: the first is returned and the bytes of the second are kept for the next")
    func pipelined() throws {
        var parser = HTTP1ResponseParser()
        parser.expectResponse(to: .get)
        let both =
            "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none"
            + "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\ntwo\r\n0\r\n\r\n"
        let first = try parser.feed(Array(both.utf8))
        #expect(first?.text == "one")
        #expect(parser.bufferedByteCount == both.utf8.count - 41)
        parser.expectResponse(to: .get)
        let second = try parser.parse()
        #expect(second?.text == "two")
        #expect(parser.bufferedByteCount == 0)
    }

    @Test("a body exactly at the body limit is accepted")
    func bodyAtLimit() throws {
        let limits = HTTPLimits(maxResponseBodyBytes: 4)
        #expect(try parseResponse("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nabcd", limits: limits).text == "abcd")
        #expect(
            try parseResponse(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n2\r\ncd\r\n0\r\n\r\n",
                limits: limits
            ).text == "abcd")
        #expect(try parseResponse("HTTP/1.1 200 OK\r\n\r\nabcd", limits: limits).text == "abcd")
    }

    @Test("exactly the maximum number of headers is accepted")
    func headersAtLimit() throws {
        let fields = (1...100).map { "X-\($0): v\r\n" }.joined()
        #expect(try parseResponse("HTTP/1.1 200 OK\r\n\(fields)\r\n").headers.count == 100)
    }

    @Test("a large body read in many pieces arrives intact")
    func largeBody() throws {
        let body = BodyPattern.bytes(from: 0, count: 300_000)
        let bytes = Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
        #expect(try parseResponse(bytes, pieceSize: 7_777).body == Data(body))
    }

    @Test("feeding a response byte by byte gives the same result as feeding it whole")
    func byteByByte() throws {
        for text in validCorpus {
            let bytes = Array(text.utf8)
            let whole = try parseResponse(bytes)
            #expect(try parseResponse(bytes, pieceSize: 1) == whole, "\(text.debugDescription)")
            #expect(try parseResponse(bytes, pieceSize: 3) == whole, "\(text.debugDescription)")
        }
    }
}

/// Valid responses of every framing, used by the byte-by-byte and fuzz tests.
let validCorpus = [
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{\"ok\": true }",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nWiki\r\n5\r\npedia\r\n0\r\nExpires: never\r\n\r\n",
    "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nETag: \"x\"\r\n\r\n",
    "HTTP/1.0 200 OK\r\nServer: old\r\n\r\nclose-delimited body",
    "HTTP/1.1 304 Not Modified\r\nETag: \"abc\"\r\nCache-Control: max-age=60\r\n\r\n",
    "HTTP/1.1 404\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
    "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\nHTTP/1.1 200 OK\nContent-Length: 3\n\nabc",
    "HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\nContent-Length: 9\r\n\r\n1\r\nx\r\n0\r\n\r\n",
]

extension HTTP1Response {
    var text: String { String(decoding: body, as: UTF8.self) }
}
