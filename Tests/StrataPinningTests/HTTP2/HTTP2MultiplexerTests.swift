import Foundation
import Strata
@testable import StrataPinning
import Testing
import TLSTestServer

@Suite("HTTP2Multiplexer maps frames to responses")
struct HTTP2MultiplexerTests {
    typealias Harness = MultiplexerHarness

    @Test("a GET goes out as SETTINGS then HEADERS with END_STREAM, and HEADERS plus DATA come back as one response")
    func simpleExchange() throws {
        let harness = try Harness()
        try harness.open(1, Harness.get("/users?page=2"))
        let sent = harness.clientFrames()
        #expect(sent.first?.kind == .settings)
        let headers = try #require(sent.first { $0.kind == .headers })
        #expect(headers.streamID == 1)
        #expect(headers.flags & HTTP2Frame.endStream != 0)
        harness.serve(
            .settings(), .headers(stream: 1, Harness.ok + [("content-length", "5")]),
            .data(stream: 1, Array("hello".utf8), endStream: true))
        let response = try #require(harness.response(1))
        #expect(response.statusCode == 200)
        #expect(response.headers["Content-Type"] == "text/plain")
        #expect(response.body == Data("hello".utf8))
        #expect(harness.multiplexer.openStreamCount == 0)
        #expect(harness.events.contains(.responseReceived(streamID: 1, statusCode: 200, bodyBytes: 5)))
    }

    @Test("trailers are read and kept apart from the header fields; interim 1xx blocks are skipped")
    func trailersAndInterim() throws {
        let harness = try Harness()
        try harness.open(1, Harness.get("/"))
        harness.clientFrames()
        harness.serve(
            .headers(stream: 1, [(":status", "103"), ("link", "</a.css>")]),
            .headers(stream: 1, Harness.ok), .data(stream: 1, Array("body".utf8)),
            .headers(stream: 1, [("grpc-status", "0")], endStream: true))
        let response = try #require(harness.response(1))
        #expect(response.interimStatusCodes == [103])
        #expect(response.trailers["grpc-status"] == "0")
        #expect(response.headers["grpc-status"] == nil)
        #expect(response.headers["link"] == nil)
        #expect(response.body == Data("body".utf8))
    }

    @Test("more interim responses than the limit fail the stream with tooManyInterimResponses")
    func interimLimit() throws {
        let harness = try Harness(limits: HTTPLimits(maxInterimResponses: 1))
        try harness.open(1, Harness.get("/"))
        harness.clientFrames()
        harness.serve(.headers(stream: 1, [(":status", "100")]), .headers(stream: 1, [(":status", "103")]))
        let failure = try #require(harness.failure(1))
        #expect(failure.error.kind == .invalidResponse)
        #expect(failure.error.underlying as? HTTP2Error == .tooManyInterimResponses(limit: 1))
    }

    @Test("a body past maxResponseBodyBytes fails that stream and cancels it; a content-length past it fails at the head")
    func bodyLimit() throws {
        let harness = try Harness(limits: HTTPLimits(maxResponseBodyBytes: 8))
        try harness.open(1, Harness.get("/streamed"))
        try harness.open(2, Harness.get("/announced"))
        harness.clientFrames()
        harness.serve(
            .headers(stream: 1, Harness.ok), .data(stream: 1, Array(repeating: 0x61, count: 6)),
            .data(stream: 1, Array(repeating: 0x61, count: 6)),
            .headers(stream: 3, Harness.ok + [("content-length", "9")]))
        #expect(harness.failure(1)?.error.underlying as? HTTP2Error == .bodyTooLarge(limit: 8))
        #expect(harness.failure(2)?.error.underlying as? HTTP2Error == .bodyTooLarge(limit: 8))
        let resets = harness.clientFrames().filter { $0.kind == .rstStream }
        #expect(resets.map(\.streamID) == [1, 3])
        #expect(resets.allSatisfy { $0.errorCode == HTTP2ErrorCode.cancel.rawValue })
    }

    @Test("an HPACK bomb (one large indexed field referenced many times) fails at the header-list limit, other streams unharmed")
    func headerListLimit() throws {
        let harness = try Harness(limits: HTTPLimits(maxHeaderBlockBytes: 16 * 1024))
        try harness.open(1, Harness.get("/bomb"))
        try harness.open(2, Harness.get("/fine"))
        harness.clientFrames()
        // 62 is the first dynamic-table entry: each reference is one byte but a 4 KiB field.
        let bomb =
            HTTP2Frame.headerBlock([(":status", "200")]) + HTTP2Frame.indexedLiteral("x-big", String(repeating: "b", count: 4000))
            + (0..<64).flatMap { _ in HTTP2Frame.indexed(62) }
        harness.serve(
            HTTP2Frame(.headers, flags: HTTP2Frame.endHeaders, streamID: 1, payload: bomb),
            .headers(stream: 3, Harness.ok, endStream: true))
        #expect(harness.failure(1)?.error.underlying as? HTTP2Error == .headerListTooLarge(limit: 16 * 1024))
        #expect(harness.response(2)?.statusCode == 200)
        #expect(harness.multiplexer.acceptsStreams)
    }

    @Test("more header fields than maxHeaderCount fail the stream with tooManyHeaders")
    func headerCountLimit() throws {
        let harness = try Harness(limits: HTTPLimits(maxHeaderCount: 3))
        try harness.open(1, Harness.get("/"))
        harness.clientFrames()
        harness.serve(.headers(stream: 1, [(":status", "200"), ("a", "1"), ("b", "2"), ("c", "3"), ("d", "4")]))
        #expect(harness.failure(1)?.error.underlying as? HTTP2Error == .tooManyHeaders(limit: 3))
    }

    @Test("a stream the server resets fails with connectionLost and streamReset; the other stream completes")
    func serverReset() throws {
        let harness = try Harness()
        try harness.open(1, Harness.get("/a"))
        try harness.open(2, Harness.get("/b"))
        harness.clientFrames()
        harness.serve(
            .rstStream(stream: 1, code: HTTP2ErrorCode.internalError.rawValue),
            .headers(stream: 3, Harness.ok, endStream: true))
        let failure = try #require(harness.failure(1))
        #expect(failure.error.kind == .connectionLost)
        #expect(failure.error.underlying as? HTTP2Error == .streamReset(.internalError))
        #expect(!failure.unprocessed)
        #expect(harness.response(2)?.statusCode == 200)
    }

    @Test("REFUSED_STREAM marks the request unprocessed, so it may be sent again whatever its method")
    func refusedStream() throws {
        let harness = try Harness()
        try harness.open(1, Harness.post("/orders", body: Data("{}".utf8)))
        harness.clientFrames()
        harness.serve(.rstStream(stream: 1, code: HTTP2ErrorCode.refusedStream.rawValue))
        #expect(harness.failure(1)?.unprocessed == true)
    }

    @Test("a response head proves the request processed: REFUSED_STREAM or a GOAWAY's last stream after it does not make it unprocessed")
    func responseHeadOutranksRefusal() throws {
        let harness = try Harness()
        for id in 1...3 { try harness.open(UInt64(id), Harness.post("/orders/\(id)", body: Data("{}".utf8))) }
        harness.clientFrames()
        harness.serve(
            .headers(stream: 1, Harness.ok),
            .rstStream(stream: 1, code: HTTP2ErrorCode.refusedStream.rawValue))
        let refused = try #require(harness.failure(1))
        #expect(refused.error.underlying as? HTTP2Error == .streamReset(.refusedStream))
        #expect(!refused.unprocessed)
        #expect(refused.receivedResponseBytes)
        // Stream 3 answered before the GOAWAY that leaves it out; stream 5 did not.
        harness.serve(.headers(stream: 3, Harness.ok), .goAway(lastStream: 1, code: 0))
        let answered = try #require(harness.failure(2))
        #expect(!answered.unprocessed)
        #expect(answered.receivedResponseBytes)
        #expect(harness.failure(3)?.unprocessed == true)
    }

    @Test("a declared content-length reserves at most 1 MiB of body storage before the bytes arrive")
    func bodyReservationIsCapped() {
        #expect(HTTP2Multiplexer.initialBodyCapacity(declaredLength: 64 << 20) == 1 << 20)
        #expect(HTTP2Multiplexer.initialBodyCapacity(declaredLength: (1 << 20) + 1) == 1 << 20)
        #expect(HTTP2Multiplexer.initialBodyCapacity(declaredLength: 512) == 512)
        #expect(HTTP2Multiplexer.initialBodyCapacity(declaredLength: -1) == 0)
    }

    @Test("GOAWAY: streams above the last stream identifier fail unprocessed at once, the rest complete, no new stream starts")
    func goAway() throws {
        let harness = try Harness()
        for id in 1...3 { try harness.open(UInt64(id), Harness.get("/\(id)")) }
        harness.clientFrames()
        harness.serve(.goAway(lastStream: 1, code: 0, debug: "restarting"))
        #expect(harness.failure(2)?.unprocessed == true)
        #expect(harness.failure(3)?.unprocessed == true)
        #expect(harness.results[1] == nil)
        #expect(!harness.multiplexer.acceptsStreams)
        try harness.open(4, Harness.get("/4"))
        #expect(harness.failure(4)?.unprocessed == true)
        harness.serve(.headers(stream: 1, Harness.ok, endStream: true))
        #expect(harness.response(1)?.statusCode == 200)
        #expect(harness.events.contains(.goAwayReceived(lastStreamID: 1, code: .noError)))
    }

    @Test("requests queued behind SETTINGS_MAX_CONCURRENT_STREAMS start as earlier streams finish")
    func loweredConcurrency() throws {
        let harness = try Harness()
        harness.clientFrames()
        harness.serve(.settings([(HTTP2Frame.maxConcurrentStreams, UInt32(1))]))
        #expect(harness.multiplexer.maxConcurrentStreams == 1)
        for id in 1...3 { try harness.open(UInt64(id), Harness.get("/\(id)")) }
        #expect(harness.clientFrames().filter { $0.kind == .headers }.map(\.streamID) == [1])
        harness.serve(.headers(stream: 1, Harness.ok, endStream: true))
        #expect(harness.clientFrames().filter { $0.kind == .headers }.map(\.streamID) == [3])
        harness.serve(.headers(stream: 3, Harness.ok, endStream: true))
        #expect(harness.clientFrames().filter { $0.kind == .headers }.map(\.streamID) == [5])
        harness.serve(.headers(stream: 5, Harness.ok, endStream: true))
        #expect((1...3).allSatisfy { harness.response(UInt64($0))?.statusCode == 200 })
    }

    @Test("a request body larger than the server's window waits for WINDOW_UPDATE (flow control)")
    func requestBodyFlowControl() throws {
        let harness = try Harness()
        let body = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
        try harness.open(1, Harness.post("/upload", body: body))
        let first = harness.clientFrames().filter { $0.kind == .data }
        #expect(first.reduce(0) { $0 + $1.payload.count } == 65_535)
        #expect(first.allSatisfy { $0.flags & HTTP2Frame.endStream == 0 })
        harness.serve(.windowUpdate(stream: 0, increment: 100_000), .windowUpdate(stream: 1, increment: 100_000))
        let rest = harness.clientFrames().filter { $0.kind == .data }
        #expect((rest.last?.flags ?? 0) & HTTP2Frame.endStream != 0)
        #expect(Data((first + rest).flatMap(\.payload)) == body)
    }

    @Test("a malformed response (no :status) fails that stream with invalidResponse; the connection stays usable")
    func malformedStream() throws {
        let harness = try Harness()
        try harness.open(1, Harness.get("/a"))
        try harness.open(2, Harness.get("/b"))
        harness.clientFrames()
        harness.serve(
            .headers(stream: 1, [("content-type", "text/plain")], endStream: true),
            .headers(stream: 3, Harness.ok, endStream: true))
        let failure = try #require(harness.failure(1))
        #expect(failure.error.kind == .invalidResponse)
        guard case .malformedResponse? = failure.error.underlying as? HTTP2Error else {
            Issue.record("expected malformedResponse, got \(String(describing: failure.error.underlying))")
            return
        }
        #expect(harness.response(2)?.statusCode == 200)
        #expect(harness.multiplexer.acceptsStreams)
    }

    @Test("a connection error (a frame on stream 0 that must not be there) fails every stream and sends GOAWAY")
    func connectionError() throws {
        let harness = try Harness()
        try harness.open(1, Harness.get("/a"))
        try harness.open(2, Harness.get("/b"))
        harness.clientFrames()
        harness.serve(.headers(stream: 0, Harness.ok))
        let goAway = try #require(harness.clientFrames().first { $0.kind == .goAway })
        #expect(goAway.errorCode == HTTP2ErrorCode.protocolError.rawValue)
        for id: UInt64 in [1, 2] {
            let failure = try #require(harness.failure(id))
            #expect(failure.error.kind == .invalidResponse)
            guard case .connectionError(.protocolError, _)? = failure.error.underlying as? HTTP2Error else {
                Issue.record("expected a connection error, got \(String(describing: failure.error.underlying))")
                continue
            }
        }
        #expect(!harness.multiplexer.acceptsStreams)
        #expect(harness.multiplexer.isFinished)
    }

    @Test("server push is off: a pushed stream is refused, and once our SETTINGS are acknowledged a PUSH_PROMISE is a connection error")
    func pushPromiseRefused() throws {
        let promise = HTTP2Frame(
            .pushPromise, flags: HTTP2Frame.endHeaders, streamID: 1,
            payload: [0, 0, 0, 2]
                + HTTP2Frame.headerBlock([
                    (":method", "GET"), (":path", "/pushed"),
                    (":scheme", "https"), (":authority", "a"),
                ]))
        let early = try Harness()
        try early.open(1, Harness.get("/a"))
        let settings = try #require(early.clientFrames().first { $0.kind == .settings })
        // SETTINGS_ENABLE_PUSH (0x2) = 0 is announced in the client's first SETTINGS.
        #expect(
            stride(from: 0, to: settings.payload.count, by: 6).contains {
                settings.payload[$0 + 1] == 0x2
                    && settings.payload[($0 + 2)..<($0 + 6)].allSatisfy { $0 == 0 }
            })
        early.serve(.settings(), promise)
        #expect(early.clientFrames().contains { $0.kind == .rstStream && $0.streamID == 2 })
        early.serve(.headers(stream: 1, Harness.ok, endStream: true))
        #expect(early.response(1)?.statusCode == 200)

        let late = try Harness()
        try late.open(1, Harness.get("/a"))
        late.clientFrames()
        late.serve(.settings(), .settings(ack: true), promise)
        // The connection error is final once the client's GOAWAY goes out.
        #expect(late.clientFrames().contains { $0.kind == .goAway && $0.errorCode == HTTP2ErrorCode.protocolError.rawValue })
        #expect(late.failure(1)?.error.kind == .invalidResponse)
    }

    @Test("the whole-request deadline fails the stream with timedOut and resets it")
    func deadline() throws {
        let harness = try Harness()
        try harness.open(1, Harness.get("/slow"), timeout: .seconds(5))
        harness.clientFrames()
        harness.advance(by: .seconds(4))
        #expect(harness.results[1] == nil)
        harness.advance(by: .seconds(1))
        #expect(harness.failure(1)?.error.kind == .timedOut)
        #expect(harness.clientFrames().contains { $0.kind == .rstStream && $0.streamID == 1 })
    }

    @Test("no frame for a stream within the idle timeout fails it with timedOut; progress restarts the wait")
    func idleTimeout() throws {
        let harness = try Harness(idleTimeout: .seconds(3), pingInterval: .seconds(100))
        try harness.open(1, Harness.get("/trickle"))
        harness.clientFrames()
        harness.serve(.headers(stream: 1, Harness.ok))
        harness.advance(by: .seconds(2))
        harness.serve(.data(stream: 1, [0x61]))
        harness.advance(by: .seconds(2))
        #expect(harness.results[1] == nil)
        harness.advance(by: .seconds(1))
        let failure = try #require(harness.failure(1))
        #expect(failure.error.kind == .timedOut)
        #expect(failure.error.message.contains("idle timeout"))
    }

    @Test("a quiet busy connection is checked with PING; an answer keeps it, silence fails every stream as connectionLost")
    func pingLiveness() throws {
        let harness = try Harness(pingInterval: .seconds(2))
        try harness.open(1, Harness.get("/a"))
        harness.clientFrames()
        harness.serve(.settings())
        harness.advance(by: .seconds(2))
        let ping = try #require(harness.clientFrames().first { $0.kind == .ping })
        #expect(ping.flags & HTTP2Frame.ack == 0)
        harness.serve(.ping(ack: true, payload: ping.payload))
        harness.advance(by: .seconds(1))
        #expect(harness.results[1] == nil)
        harness.advance(by: .seconds(1))
        #expect(harness.clientFrames().contains { $0.kind == .ping })
        harness.advance(by: .seconds(2))
        let failure = try #require(harness.failure(1))
        #expect(failure.error.kind == .connectionLost)
        #expect(failure.connectionFailed)
        guard case .pingUnanswered? = failure.error.underlying as? HTTP2Error else {
            Issue.record("expected pingUnanswered, got \(String(describing: failure.error.underlying))")
            return
        }
        #expect(!harness.multiplexer.acceptsStreams)
    }

    @Test("cancelling one exchange resets its stream with CANCEL, reports nothing for it, and leaves the others alone")
    func cancellation() throws {
        let harness = try Harness()
        try harness.open(1, Harness.get("/a"))
        try harness.open(2, Harness.get("/b"))
        harness.clientFrames()
        harness.multiplexer.cancel(1)
        let reset = try #require(harness.clientFrames().first { $0.kind == .rstStream })
        #expect(reset.streamID == 1)
        #expect(reset.errorCode == HTTP2ErrorCode.cancel.rawValue)
        harness.serve(.headers(stream: 1, Harness.ok, endStream: true), .headers(stream: 3, Harness.ok, endStream: true))
        #expect(harness.results[1] == nil)
        #expect(harness.response(2)?.statusCode == 200)
    }

    @Test("when the connection under it closes, open streams fail as connectionLost with an unknown fate")
    func transportClosed() throws {
        let harness = try Harness()
        try harness.open(1, Harness.get("/a"))
        harness.clientFrames()
        harness.closeTransport()
        let failure = try #require(harness.failure(1))
        #expect(failure.error.kind == .connectionLost)
        #expect(failure.connectionFailed)
        #expect(!failure.receivedResponseBytes)
        #expect(failure.error.underlying as? HTTP2Error == .connectionClosed)
    }

    @Test("after a TLS failure ended the connection, a request that arrives late gets that failure, not a retryable loss")
    func tlsFailureAnswersLateRequests() throws {
        // Over TLS 1.3 a server refuses a missing client certificate after the handshake: its
        // alert can end the connection before or after a request reaches the multiplexer.
        let harness = try Harness()
        try harness.open(1, Harness.get("/a"))
        harness.clientFrames()
        let refusal = ClientAuthenticationError.certificateRequired(host: "localhost")
        harness.closeTransport(TransportError(.tls, message: refusal.description, underlying: refusal))
        try harness.open(2, Harness.get("/b"))
        for id: UInt64 in [1, 2] {
            let failure = try #require(harness.failure(id))
            #expect(failure.error.kind == .tls, "exchange \(id)")
            #expect(!failure.error.isTransient, "exchange \(id)")
            #expect(!failure.unprocessed, "exchange \(id)")
            #expect(failure.error.underlying as? ClientAuthenticationError == refusal, "exchange \(id)")
        }
        #expect(harness.failure(2)?.error.url?.path == "/b")
    }

    @Test("connection-specific header fields are dropped and names lower-cased; Host becomes :authority")
    func requestFields() throws {
        var request = Harness.get("/x")
        request.headers["Connection"] = "keep-alive"
        request.headers["Keep-Alive"] = "timeout=5"
        request.headers["TE"] = "gzip"
        request.headers["X-Trace"] = "abc"
        let encoded = try HTTP2Request(request)
        #expect(encoded.fields.map(\.name) == [":method", ":scheme", ":authority", ":path", "x-trace"])
        #expect(encoded.fields[2].value == "api.example.com")
        #expect(encoded.fields[3].value == "/x")
    }
}
