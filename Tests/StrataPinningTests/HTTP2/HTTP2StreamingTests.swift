import Foundation
import Strata
@testable import StrataPinning
import Testing
import TLSTestServer

/// Streamed exchanges at the multiplexer: heads before bodies, windows that follow the reader,
/// early release, and request bodies pulled as the caller produces them. The harness plays the
/// connection's loop, so every "the reader drained its channel" below is the `readerDemand` the
/// loop would run when the channel's `onDemand` wakes it.
@Suite("HTTP2Multiplexer streams bodies with flow control that follows the reader")
struct HTTP2StreamingTests {
    typealias Harness = MultiplexerHarness

    /// The stream window, in 16 KiB DATA frames.
    private static let windowFrames = HTTP2Multiplexer.streamWindowBytes / 16_384

    /// WINDOW_UPDATE increments the client sent for `stream`.
    private static func windowUpdates(_ frames: [HTTP2Frame], stream: UInt32) -> [UInt32] {
        frames.filter { $0.kind == .windowUpdate && $0.streamID == stream }
            .map { $0.payload.reduce(0) { $0 << 8 | UInt32($1) } & 0x7FFF_FFFF }
    }

    /// Reads `count` bytes from `iterator`.
    private static func read(_ count: Int, from iterator: inout HTTPBody.Iterator) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        while bytes.count < count, let chunk = try await iterator.next() { bytes += chunk }
        return bytes
    }

    @Test("the head is delivered before the body's last DATA frame, and the body follows in the channel")
    func headBeforeBody() async throws {
        let harness = try Harness()
        let channel = BodyChannel()
        try harness.openStreamed(1, Harness.get("/download"), channel: channel)
        harness.clientFrames()
        harness.serve(.headers(stream: 1, Harness.ok + [("content-length", "10")]), .data(stream: 1, Array("hello".utf8)))
        let head = try #require(harness.heads[1])
        #expect(head.statusCode == 200)
        #expect(head.headers["content-length"] == "10")
        #expect(harness.results[1] == nil)
        harness.serve(.data(stream: 1, Array("world".utf8), endStream: true))
        #expect(harness.results[1] != nil)
        #expect(try await channel.body(length: 10).collect(upTo: 100) == Data("helloworld".utf8))
    }

    @Test("a reader that does not read gets no WINDOW_UPDATE sent for it: the server can fill the window, no more; reading reopens it")
    func windowFollowsReader() async throws {
        let harness = try Harness()
        let channel = BodyChannel(highWatermark: 16_384)
        let demands = LockedValue(0)
        channel.onDemand { demands.withLock { $0 += 1 } }
        try harness.openStreamed(1, Harness.get("/big"), channel: channel)
        harness.clientFrames()
        // Our SETTINGS (the 1 MiB stream window) apply once the server acknowledges them.
        harness.serve(.settings(), .settings(ack: true), .headers(stream: 1, Harness.ok))
        harness.serve(bytes: Harness.data(stream: 1, frames: Self.windowFrames))
        // A whole window arrived and nobody read: nothing was acknowledged beyond what the
        // channel took below its watermark, too little for nghttp2 to send a WINDOW_UPDATE.
        let afterWindow = harness.clientFrames()
        #expect(Self.windowUpdates(afterWindow, stream: 1).isEmpty)
        #expect(Self.windowUpdates(afterWindow, stream: 0).isEmpty)
        #expect(harness.results[1] == nil)

        // The reader takes the whole window; the channel asks for more once it is drained.
        var iterator = channel.body(length: nil).makeAsyncIterator()
        let read = try await Self.read(HTTP2Multiplexer.streamWindowBytes, from: &iterator)
        #expect(read.count == HTTP2Multiplexer.streamWindowBytes)
        #expect(demands.withLock { $0 } == 1)
        harness.multiplexer.readerDemand(1)
        let reopened = Self.windowUpdates(harness.clientFrames(), stream: 1)
        #expect(reopened.reduce(0, +) == UInt32(HTTP2Multiplexer.streamWindowBytes))

        // So the server may send another window, and the stream completes.
        harness.serve(bytes: Harness.data(stream: 1, frames: Self.windowFrames, end: true))
        #expect(harness.response(1)?.statusCode == 200)
        let rest = try await Self.read(HTTP2Multiplexer.streamWindowBytes + 1, from: &iterator)
        #expect(rest.count == HTTP2Multiplexer.streamWindowBytes)
    }

    @Test("a server that sends past the stream window while the reader is behind gets the stream reset with FLOW_CONTROL_ERROR")
    func windowIsEnforced() throws {
        let harness = try Harness()
        let channel = BodyChannel(highWatermark: 16_384)
        try harness.openStreamed(1, Harness.get("/big"), channel: channel)
        harness.clientFrames()
        harness.serve(.settings(), .settings(ack: true), .headers(stream: 1, Harness.ok))
        harness.serve(bytes: Harness.data(stream: 1, frames: Self.windowFrames) + HTTP2Frame.data(stream: 1, [0x61]).bytes)
        let reset = try #require(harness.clientFrames().first { $0.kind == .rstStream && $0.streamID == 1 })
        #expect(reset.errorCode == HTTP2ErrorCode.flowControlError.rawValue)
    }

    @Test("a reader that releases the body early gets its stream reset with CANCEL; another stream on the connection still completes")
    func releaseEarly() async throws {
        let harness = try Harness()
        let released = BodyChannel()
        let other = BodyChannel()
        try harness.openStreamed(1, Harness.get("/abandoned"), channel: released)
        try harness.openStreamed(2, Harness.get("/kept"), channel: other)
        harness.clientFrames()
        harness.serve(
            .headers(stream: 1, Harness.ok), .data(stream: 1, Array("partial".utf8)),
            .headers(stream: 3, Harness.ok), .data(stream: 3, Array("kept ".utf8)))
        released.release()
        harness.multiplexer.readerDemand(1)
        let reset = try #require(harness.clientFrames().first { $0.kind == .rstStream })
        #expect(reset.streamID == 1)
        #expect(reset.errorCode == HTTP2ErrorCode.cancel.rawValue)
        // Bytes already in flight for the released stream change nothing for the other one.
        harness.serve(.data(stream: 1, Array("late".utf8)), .data(stream: 3, Array("body".utf8), endStream: true))
        #expect(harness.response(2)?.statusCode == 200)
        #expect(try await other.body(length: nil).collect(upTo: 100) == Data("kept body".utf8))
        #expect(harness.multiplexer.acceptsStreams)
        #expect(harness.multiplexer.openStreamCount == 0)
    }

    @Test(
        "paused readers hold back only their own stream's window: the connection's is credited as bytes arrive, so unread bodies cannot starve other streams"
    )
    func pausedStreamsDoNotStarveTheConnection() throws {
        let harness = try Harness()
        // More unread streams than half the connection window holds: nghttp2 reopens a window
        // only once half of it was acknowledged, which paused readers would otherwise never do.
        let count = HTTP2Multiplexer.connectionWindowBytes / HTTP2Multiplexer.streamWindowBytes / 2 + 1
        let channels = (0..<count).map { _ in BodyChannel(highWatermark: 16_384) }
        for (index, channel) in channels.enumerated() {
            try harness.openStreamed(UInt64(index + 1), Harness.get("/\(index)"), channel: channel)
        }
        harness.clientFrames()
        harness.serve(.settings(), .settings(ack: true))
        harness.clientFrames()
        for index in 0..<count {
            let stream = UInt32(2 * index + 1)
            harness.serve(.headers(stream: stream, Harness.ok))
            harness.serve(bytes: Harness.data(stream: stream, frames: Self.windowFrames))
        }
        let sent = harness.clientFrames()
        #expect(
            Self.windowUpdates(sent, stream: 0).reduce(0, +) >= UInt32(HTTP2Multiplexer.connectionWindowBytes / 2),
            "the connection window reopened while every reader was paused")
        for index in 0..<count {
            #expect(Self.windowUpdates(sent, stream: UInt32(2 * index + 1)).isEmpty, "no stream window reopened for unread bytes")
        }
        for (index, channel) in channels.enumerated() {
            channel.release()
            harness.multiplexer.readerDemand(UInt64(index + 1))
        }
        #expect(harness.clientFrames().filter { $0.kind == .rstStream }.count == count)
    }

    @Test("a reader that resumes after a pause longer than the idle timeout gets the whole idle timeout again, from when it resumed")
    func resumeRestartsIdleWaitNow() async throws {
        let harness = try Harness(idleTimeout: .seconds(5), pingInterval: .seconds(60))
        let channel = BodyChannel(highWatermark: 16_384)
        try harness.openStreamed(1, Harness.get("/big"), channel: channel)
        harness.clientFrames()
        harness.serve(.settings(), .settings(ack: true), .headers(stream: 1, Harness.ok))
        harness.serve(bytes: Harness.data(stream: 1, frames: Self.windowFrames))
        // Nothing arrives for 8 s while the reader is behind: not idle, the server may not send.
        harness.advance(by: .seconds(8))
        #expect(harness.failure(1) == nil)
        var iterator = channel.body(length: nil).makeAsyncIterator()
        _ = try await Self.read(HTTP2Multiplexer.streamWindowBytes, from: &iterator)
        harness.multiplexer.readerDemand(1, now: harness.now)
        harness.clientFrames()
        // One second after resuming (nine after the last frame), the stream still waits.
        harness.advance(by: .seconds(1))
        #expect(harness.failure(1) == nil, "timed out against the last frame's time, not the resumption's")
    }

    @Test("a request body of unknown length goes out in DATA frames as the caller produces it, END_STREAM after the last")
    func streamedRequestBody() async throws {
        let harness = try Harness()
        let (chunks, producer) = AsyncStream<ArraySlice<UInt8>>.makeStream()
        let request = HTTPRequest(
            method: .put, url: URL(string: "https://api.example.com/upload")!,
            body: HTTPBody(chunks, length: nil))
        let framed = try harness.openStreamed(1, request, channel: BodyChannel())
        guard case let .streamed(pipe, length) = framed.body else {
            Issue.record("expected a streamed body, got \(framed.body)")
            return
        }
        #expect(length == nil)
        #expect(!framed.fields.contains { $0.name == "content-length" })
        let (available, wake) = AsyncStream<Void>.makeStream()
        pipe.onAvailable { wake.yield() }
        var wakeUps = available.makeAsyncIterator()
        #expect(!pipe.hasStarted)
        // The HEADERS go out, and nghttp2's first ask for DATA starts reading the body.
        let headers = try #require(harness.clientFrames().first { $0.kind == .headers })
        #expect(headers.flags & HTTP2Frame.endStream == 0)
        #expect(pipe.hasStarted)

        var sent: [HTTP2Frame] = []
        for piece in ["first ", "second ", "third"] {
            producer.yield(Array(piece.utf8)[...])
            await wakeUps.next()
            harness.multiplexer.requestBodyAvailable(1)
            let data = harness.clientFrames().filter { $0.kind == .data }
            #expect(data.map { String(decoding: $0.payload, as: UTF8.self) } == [piece])
            #expect(data.allSatisfy { $0.flags & HTTP2Frame.endStream == 0 })
            sent += data
        }
        producer.finish()
        await wakeUps.next()
        harness.multiplexer.requestBodyAvailable(1)
        let last = try #require(harness.clientFrames().last { $0.kind == .data })
        #expect(last.flags & HTTP2Frame.endStream != 0)
        #expect(String(decoding: (sent + [last]).flatMap(\.payload), as: UTF8.self) == "first second third")
        harness.serve(.headers(stream: 1, Harness.ok, endStream: true))
        #expect(harness.heads[1]?.statusCode == 200)
    }

    @Test(
        "a request body shorter than its declared length resets the stream and fails with invalidRequest and lengthMismatch; no END_STREAM goes out",
        .timeLimit(.minutes(1)))
    func requestBodyLengthMismatch() async throws {
        let harness = try Harness()
        let (chunks, producer) = AsyncStream<ArraySlice<UInt8>>.makeStream()
        let request = HTTPRequest(
            method: .post, url: URL(string: "https://api.example.com/upload")!,
            body: HTTPBody(chunks, length: 10))
        let framed = try harness.openStreamed(1, request, channel: BodyChannel())
        guard case let .streamed(pipe, _) = framed.body else {
            Issue.record("expected a streamed body")
            return
        }
        #expect(framed.fields.contains(HTTP2Field(name: "content-length", value: "10")))
        let (available, wake) = AsyncStream<Void>.makeStream()
        pipe.onAvailable { wake.yield() }
        var wakeUps = available.makeAsyncIterator()
        harness.clientFrames()
        producer.yield(Array("abc".utf8)[...])
        producer.finish()
        // The chunk and the failure reach the pipe one after the other, and the connection may
        // read between them: each wake-up is answered as the connection's loop answers it, until
        // the stream is reset (a wake-up comes only while the connection waits for the body).
        var frames: [HTTP2Frame] = []
        while !frames.contains(where: { $0.kind == .rstStream }) {
            await wakeUps.next()
            harness.multiplexer.requestBodyAvailable(1)
            frames += harness.clientFrames()
        }
        #expect(frames.contains { $0.kind == .rstStream && $0.errorCode == HTTP2ErrorCode.cancel.rawValue })
        #expect(!frames.contains { $0.kind == .data && $0.flags & HTTP2Frame.endStream != 0 })
        #expect(frames.filter { $0.kind == .data }.flatMap(\.payload).count <= 3)
        let failure = try #require(harness.failure(1))
        #expect(failure.error.kind == .invalidRequest)
        #expect(failure.error.underlying as? HTTPRequestError == .unreadableBody(.lengthMismatch(expected: 10, actual: 3)))
    }

    @Test("a body that fails while nghttp2 asks for it gets its RST_STREAM out in the same produce call, even when nothing else was framed")
    func failedBodyResetsInOneProduce() async throws {
        let harness = try Harness()
        struct Broken: Error {}
        let (chunks, producer) = AsyncThrowingStream<ArraySlice<UInt8>, any Error>.makeStream()
        let request = HTTPRequest(
            method: .put, url: URL(string: "https://api.example.com/upload")!,
            body: HTTPBody(chunks, length: nil))
        let framed = try harness.openStreamed(1, request, channel: BodyChannel())
        guard case let .streamed(pipe, _) = framed.body else {
            Issue.record("expected a streamed body")
            return
        }
        let (available, wake) = AsyncStream<Void>.makeStream()
        pipe.onAvailable { wake.yield() }
        var wakeUps = available.makeAsyncIterator()
        harness.clientFrames()
        producer.finish(throwing: Broken())
        await wakeUps.next()
        harness.multiplexer.requestBodyAvailable(1)
        // One produce: the data provider finds the failure (0 bytes framed), and the reset follows.
        var frames: [UInt8] = []
        let produced = harness.multiplexer.produce(upTo: 1 << 20, now: harness.now) { frames += $0 }
        #expect(produced > 0)
        var reader = HTTP2FrameReader(expectingClientMagic: false)
        reader.append(frames)
        #expect(reader.all().contains { $0.kind == .rstStream && $0.streamID == 1 })
        harness.clientFrames()
        #expect(harness.failure(1)?.error.kind == .invalidRequest)
    }

    @Test(
        "a server that answers in full before the request body was all sent gets the stream reset with CANCEL, so the rest is never sent (RFC 9113 §8.1)",
        arguments: [false, true])
    func earlyResponseStopsTheBody(streamed: Bool) throws {
        let harness = try Harness()
        // More than the server's initial 65,535-byte window: the rest waits for a WINDOW_UPDATE.
        let body = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
        let request = Harness.post("/upload", body: body)
        if streamed {
            try harness.openStreamed(1, request, channel: BodyChannel())
        } else {
            try harness.open(1, request)
        }
        #expect(harness.clientFrames().filter { $0.kind == .data }.reduce(0) { $0 + $1.payload.count } == 65_535)
        harness.serve(.headers(stream: 1, [(":status", "413"), ("content-length", "0")], endStream: true))
        let afterAnswer = harness.clientFrames()
        #expect(afterAnswer.contains { $0.kind == .rstStream && $0.streamID == 1 && $0.errorCode == HTTP2ErrorCode.cancel.rawValue })
        #expect(streamed ? harness.heads[1]?.statusCode == 413 : harness.response(1)?.statusCode == 413)
        // A window opened now sends nothing more for the stream.
        harness.serve(.windowUpdate(stream: 0, increment: 100_000), .windowUpdate(stream: 1, increment: 100_000))
        #expect(!harness.clientFrames().contains { $0.kind == .data })
        #expect(harness.multiplexer.openStreamCount == 0)
    }

    @Test("a cancelled streamed exchange is reset with CANCEL, its reader gets CancellationError, and the connection carries on")
    func cancelStreamed() async throws {
        let harness = try Harness()
        let channel = BodyChannel()
        try harness.openStreamed(1, Harness.get("/a"), channel: channel)
        try harness.open(2, Harness.get("/b"))
        harness.clientFrames()
        harness.serve(.headers(stream: 1, Harness.ok), .data(stream: 1, [1, 2, 3]))
        harness.cancel(1)
        #expect(harness.clientFrames().contains { $0.kind == .rstStream && $0.streamID == 1 })
        harness.serve(.data(stream: 1, [4]), .headers(stream: 3, Harness.ok, endStream: true))
        #expect(harness.response(2)?.statusCode == 200)
        await #expect(throws: CancellationError.self) { _ = try await channel.body(length: nil).collect(upTo: 100) }
    }
}
