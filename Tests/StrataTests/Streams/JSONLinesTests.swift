import Foundation
@testable import Strata
import TestServer
import Testing

@Suite("JSON Lines: each line decoded as it arrives")
struct JSONLinesTests {
    struct Row: Codable, Hashable, Sendable {
        var n: Int
    }

    /// The lines `text` splits into (number and text), checked to be the same fed one byte at a time.
    static func lines(_ text: String, maxLineBytes: Int = 1 << 20) throws -> [(Int, String)] {
        func split(_ pieces: [ArraySlice<UInt8>]) throws -> [(Int, String)] {
            var splitter = JSONLineSplitter(maxLineBytes: maxLineBytes)
            var lines: [(Int, String)] = []
            for piece in pieces { try splitter.split(piece) { lines.append(($1, String(decoding: $0, as: UTF8.self))) } }
            try splitter.finish { lines.append(($1, String(decoding: $0, as: UTF8.self))) }
            return lines
        }
        let bytes = Array(text.utf8)
        let whole = try split([bytes[...]])
        let byByte = try split(bytes.indices.map { bytes[$0...$0] })
        #expect(whole.map(\.0) == byByte.map(\.0) && whole.map(\.1) == byByte.map(\.1), "byte by byte differs")
        return whole
    }

    static func rows(_ chunks: [String], maxLineBytes: Int = 1 << 20) async throws -> [Row] {
        let body = HTTPBody(
            AsyncStream { continuation in
                for chunk in chunks { continuation.yield(Array(chunk.utf8)[...]) }
                continuation.finish()
            }, length: nil)
        return try await Array(body.jsonLines(of: Row.self, maxLineBytes: maxLineBytes))
    }

    @Test("lines end with \\n or \\r\\n")
    func lineEnds() throws {
        #expect(try Self.lines("a\nb\r\nc\n").map(\.1) == ["a", "b", "c"])
    }

    @Test("blank lines, and lines of only spaces and tabs, are skipped but counted")
    func blankLinesSkipped() throws {
        let lines = try Self.lines("a\n\n \t\n\r\nb\n")
        #expect(lines.map(\.1) == ["a", "b"])
        #expect(lines.map(\.0) == [1, 5])
    }

    @Test("the last line without a trailing newline is still read")
    func lastLineWithoutNewline() async throws {
        #expect(try Self.lines("a\nb").map(\.1) == ["a", "b"])
        #expect(try await Self.rows(["{\"n\":1}\n{\"n\":2}"]) == [Row(n: 1), Row(n: 2)])
    }

    @Test("a line longer than the limit throws lineTooLong with its number, before more of it is held")
    func lineTooLong() throws {
        #expect(try Self.lines("12345\n123\r\n", maxLineBytes: 5).map(\.1) == ["12345", "123"])
        let error = #expect(throws: JSONLinesError.self) { try Self.lines("ok\n\n123456", maxLineBytes: 5) }
        guard case .lineTooLong(let line, let limit) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(line == 3)
        #expect(limit == 5)
    }

    @Test("values decode across chunk cuts, and values before a bad line are delivered before its error")
    func decodesAndReportsBadLine() async throws {
        #expect(try await Self.rows(["{\"n\"", ":1}\r", "\n\n{\"n\":2}\n"]) == [Row(n: 1), Row(n: 2)])
        let body = HTTPBody("{\"n\":1}\n{\"n\":\"two\"}\n{\"n\":3}\n")
        var received: [Row] = []
        let error = await #expect(throws: JSONLinesError.self) {
            for try await row in body.jsonLines(of: Row.self) { received.append(row) }
        }
        guard case .invalidLine(let line, let underlying) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(line == 2)
        #expect(underlying is DecodingError)
        #expect(received == [Row(n: 1)])
        #expect(error?.description.contains("line 2") == true)
    }

    @Test("over a body the test drips, line 1 is decoded before the rest of the body exists")
    func decodedBeforeBodyEnds() async throws {
        let (chunks, producer) = AsyncStream<ArraySlice<UInt8>>.makeStream()
        var rows = HTTPBody(chunks, length: nil).jsonLines(of: Row.self).makeAsyncIterator()
        producer.yield(Array("{\"n\":1}\n{\"n\":".utf8)[...])
        #expect(try await rows.next() == Row(n: 1)) // The body is still open: nothing else was produced.
        producer.yield(Array("2}\n".utf8)[...])
        #expect(try await rows.next() == Row(n: 2))
        producer.finish()
        #expect(try await rows.next() == nil)
    }

    @Test("from a loopback server that writes line 2 only after the client decoded line 1")
    func loopbackDrip() async throws {
        let lineOneDecoded = DispatchSemaphore(value: 0)
        let server = try LoopbackHTTPServer()
        server.route(
            "/export",
            response: .streamed(headers: [
                ("Content-Type", "application/x-ndjson"),
                ("Transfer-Encoding", "chunked"),
            ]) { write in
                func chunk(_ text: String) -> Data { Data("\(String(text.utf8.count, radix: 16))\r\n\(text)\r\n".utf8) }
                _ = write(chunk("{\"n\":1}\n"))
                lineOneDecoded.wait() // The server's own thread; the test signals it.
                _ = write(chunk("{\"n\":2}\n"))
                _ = write(Data("0\r\n\r\n".utf8))
            })
        let service = HTTPNetworkService(transport: URLSessionTransport())
        var received: [Row] = []
        for try await row in service.jsonLines(
            TestEndpoint(path: "/export"), via: DefaultAPIEnvironment(baseURL: server.baseURL),
            decoding: Row.self)
        {
            received.append(row)
            if row.n == 1 { lineOneDecoded.signal() }
        }
        #expect(received == [Row(n: 1), Row(n: 2)])
    }
}
