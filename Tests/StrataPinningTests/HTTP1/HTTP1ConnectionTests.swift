#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
@testable import StrataPinning
import Synchronization
import Testing

@Suite("HTTP1Connection over a scripted stream")
struct HTTP1ConnectionTests {
    private let farDeadline = ContinuousClock.now + .seconds(3600)

    private func request(_ path: String = "/", method: String = "GET", headers: [String: String] = [:]) throws -> HTTP1Request {
        let request = HTTPRequest(
            method: HTTPMethod(rawValue: method), url: URL(string: "http://example.test\(path)")!,
            headers: HTTPHeaders(headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        return try HTTP1RequestEncoder.encode(request)
    }

    private func failure(_ body: () throws(HTTP1ExchangeError) -> Void) -> HTTP1ExchangeError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test("a request is written whole, its response read, and every step reported to the event hook")
    func exchange() throws {
        let stream = ScriptedByteStream([.text("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")])
        let recorder = EventRecorder()
        var connection = HTTP1Connection(stream: stream, onEvent: recorder.hook)
        let response = try connection.send(request("/a"), deadline: farDeadline)
        #expect(response.text == "ok")
        #expect(stream.written == "GET /a HTTP/1.1\r\nHost: example.test\r\n\r\n")
        #expect(
            recorder.events == [
                .requestSent(method: .get, bytes: 39), .interimResponseSkipped(statusCode: 100),
                .responseReceived(statusCode: 200, bodyBytes: 2, keepAlive: true),
            ])
        #expect(connection.isReusable)
        #expect(connection.completedExchanges == 1)
        #expect(!stream.isClosed)
    }

    @Test("a keep-alive connection carries one exchange after another")
    func sequentialExchanges() throws {
        let stream = ScriptedByteStream([])
        var connection = HTTP1Connection(stream: stream)
        for index in 0..<3 {
            stream.append([.text("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n\(index)")])
            #expect(try connection.send(request("/\(index)"), deadline: farDeadline).text == "\(index)")
        }
        #expect(connection.completedExchanges == 3)
        #expect(connection.isReusable)
    }

    @Test("Connection: close from the server ends reuse, closes the stream, and a later send is refused")
    func serverClose() throws {
        let stream = ScriptedByteStream([.text("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")])
        var connection = HTTP1Connection(stream: stream)
        _ = try connection.send(request(), deadline: farDeadline)
        #expect(!connection.isReusable)
        #expect(stream.isClosed)
        let refused = try failure { [request = request()] () throws(HTTP1ExchangeError) in
            _ = try connection.send(request, deadline: farDeadline)
        }
        #expect(refused?.error.kind == .other)
    }

    @Test("a request that asked for Connection: close ends reuse")
    func clientClose() throws {
        let stream = ScriptedByteStream([.text("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")])
        var connection = HTTP1Connection(stream: stream)
        _ = try connection.send(request(headers: ["Connection": "close"]), deadline: farDeadline)
        #expect(!connection.isReusable)
        #expect(stream.isClosed)
    }

    @Test("bytes after the response end reuse, since nothing was pipelined")
    func strayBytes() throws {
        let stream = ScriptedByteStream([.text("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxHTTP/1.1 200 OK\r\n")])
        var connection = HTTP1Connection(stream: stream)
        #expect(try connection.send(request(), deadline: farDeadline).text == "x")
        #expect(!connection.isReusable)
    }

    @Test("a close-delimited body is read to end of stream and ends reuse")
    func closeDelimited() throws {
        let stream = ScriptedByteStream([.text("HTTP/1.1 200 OK\r\n\r\npart one, "), .text("part two"), .endOfStream])
        var connection = HTTP1Connection(stream: stream)
        #expect(try connection.send(request(), deadline: farDeadline).text == "part one, part two")
        #expect(!connection.isReusable)
    }

    @Test("the whole-request deadline is checked between reads, so a trickling server times out")
    func wholeRequestDeadline() throws {
        let trickle = Array("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n".utf8).map { ScriptedByteStream.Step.bytes([$0]) }
        let stream = ScriptedByteStream(trickle)
        // A fake clock that advances one second per read.
        let start = ContinuousClock.now
        let recorder = EventRecorder()
        var connection = HTTP1Connection(stream: stream, onEvent: recorder.hook, now: { start + .seconds(stream.reads) })
        let error = try failure { [request = request()] () throws(HTTP1ExchangeError) in
            _ = try connection.send(request, deadline: start + .seconds(5))
        }
        #expect(error?.error.kind == .timedOut)
        #expect(error?.error.url?.absoluteString == "http://example.test/")
        #expect(error?.receivedResponseBytes == true)
        #expect(stream.reads == 5)
        #expect(stream.isClosed)
        #expect(!connection.isReusable)
        #expect(recorder.events.last == .failed(kind: .timedOut, message: error?.error.message ?? ""))
    }

    @Test("end of stream before any response byte is connectionLost with no response bytes received")
    func closedBeforeResponse() throws {
        let stream = ScriptedByteStream([.endOfStream])
        var connection = HTTP1Connection(stream: stream)
        let error = try failure { [request = request()] () throws(HTTP1ExchangeError) in
            _ = try connection.send(request, deadline: farDeadline)
        }
        #expect(error?.error.kind == .connectionLost)
        #expect(error?.error.underlying as? HTTP1ResponseError == .closedBeforeResponse)
        #expect(error?.receivedResponseBytes == false)
    }

    @Test("end of stream in the middle of the body is connectionLost naming the truncation")
    func truncatedBody() throws {
        let stream = ScriptedByteStream([.text("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"), .endOfStream])
        var connection = HTTP1Connection(stream: stream)
        let error = try failure { [request = request(method: "POST")] () throws(HTTP1ExchangeError) in
            _ = try connection.send(request, deadline: farDeadline)
        }
        #expect(error?.error.kind == .connectionLost)
        #expect(error?.error.method == .post)
        #expect(error?.error.underlying as? HTTP1ResponseError == .truncatedBody(expectedBytes: 10, receivedBytes: 3))
        #expect(error?.error.message.contains("3 of 10") == true)
        #expect(error?.receivedResponseBytes == true)
    }

    @Test("malformed bytes are invalidResponse carrying the parser's error, and the stream is closed")
    func malformed() throws {
        let stream = ScriptedByteStream([.text("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n")])
        var connection = HTTP1Connection(stream: stream)
        let error = try failure { [request = request()] () throws(HTTP1ExchangeError) in
            _ = try connection.send(request, deadline: farDeadline)
        }
        #expect(error?.error.kind == .invalidResponse)
        #expect(error?.error.underlying as? HTTP1ResponseError == .invalidChunkSize(excerpt: "\"xyz\""))
        #expect(stream.isClosed)
    }

    @Test("a failing write is reported with the request's method and URL, before any read")
    func writeFailure() throws {
        let stream = ScriptedByteStream([], writeFailure: TransportError(.connectionLost, message: "EPIPE"))
        var connection = HTTP1Connection(stream: stream)
        let error = try failure { [request = request("/w", method: "PUT")] () throws(HTTP1ExchangeError) in
            _ = try connection.send(request, deadline: farDeadline)
        }
        #expect(error?.error.kind == .connectionLost)
        #expect(error?.error.method == .put)
        #expect(error?.error.url?.path == "/w")
        #expect(error?.receivedResponseBytes == false)
        #expect(stream.reads == 0)
    }

    @Test("a deadline already passed fails before anything is written")
    func deadlinePassed() throws {
        let stream = ScriptedByteStream([])
        var connection = HTTP1Connection(stream: stream)
        let error = try failure { [request = request()] () throws(HTTP1ExchangeError) in
            _ = try connection.send(request, deadline: ContinuousClock.now - .seconds(1))
        }
        #expect(error?.error.kind == .timedOut)
        #expect(stream.written.isEmpty)
    }
}
