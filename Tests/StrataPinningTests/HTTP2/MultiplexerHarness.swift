#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
@testable import StrataPinning
import TLSTestServer

/// Drives an ``HTTP2Multiplexer`` as a connection's loop would, with a hand-moved clock and a
/// scripted server: frames in, the client's frames out, finished exchanges collected.
final class MultiplexerHarness {
    let multiplexer: HTTP2Multiplexer
    private(set) var now = ContinuousClock.now
    private var reader = HTTP2FrameReader(expectingClientMagic: true)
    private(set) var results: [UInt64: Result<HTTP2Response, HTTP2StreamFailure>] = [:]
    /// The events of every finished exchange, in the order the exchanges finished.
    private(set) var events: [HTTP2Event] = []
    /// The events of each finished exchange, by exchange.
    private(set) var eventsByExchange: [UInt64: [HTTP2Event]] = [:]
    /// Exchanges reported finished more than once (a bug the tests look for).
    private(set) var finishedTwice: [UInt64] = []
    /// The heads of streamed exchanges, by exchange.
    private(set) var heads: [UInt64: HTTPResponseHead] = [:]

    init(limits: HTTPLimits = .default, idleTimeout: Duration = .seconds(30), pingInterval: Duration = .seconds(10)) throws {
        multiplexer = try HTTP2Multiplexer(
            limits: limits, timing: .init(idleTimeout: idleTimeout, pingInterval: pingInterval),
            now: now)
    }

    /// Starts `request` as exchange `id`, with a deadline `timeout` from now.
    func open(_ id: UInt64, _ request: HTTPRequest, timeout: Duration = .seconds(60)) throws {
        multiplexer.open(
            .init(id: id, request: try HTTP2Request(request), deadline: now + timeout, collectsEvents: true),
            now: now)
        collect()
    }

    /// Starts `request` as streamed exchange `id`: its head is reported in ``heads``, its body
    /// goes to `channel`. Returns the request as framed (its body pipe, for a streamed body).
    @discardableResult
    func openStreamed(
        _ id: UInt64, _ request: HTTPRequest, channel: BodyChannel,
        timeout: Duration = .seconds(60)
    ) throws -> HTTP2Request {
        let framed = try HTTP2Request(request)
        multiplexer.open(
            .init(id: id, request: framed, deadline: now + timeout, collectsEvents: true, responseBody: channel),
            now: now)
        collect()
        return framed
    }

    /// Abandons exchange `id`, as a cancelled caller does.
    func cancel(_ id: UInt64) {
        multiplexer.cancel(id)
        collect()
    }

    /// Everything the client sends now, as frames.
    @discardableResult
    func clientFrames() -> [HTTP2Frame] {
        while multiplexer.produce(upTo: 1 << 20, now: now, into: { reader.append($0) }) > 0 {}
        collect()
        return reader.all()
    }

    private var prefaceServed = false

    /// Feeds `frames` to the client, all at once, after the server preface (an empty SETTINGS)
    /// if it was not served yet: a client takes anything else first as a connection error.
    func serve(_ frames: HTTP2Frame...) {
        let preface = prefaceServed || frames.first?.kind == .settings ? [] : HTTP2Frame.settings().bytes
        serve(bytes: preface + frames.flatMap(\.bytes))
    }

    func serve(bytes: [UInt8]) {
        prefaceServed = true
        bytes.withUnsafeBytes { multiplexer.receive($0, now: now) }
        collect()
    }

    /// Feeds `bytes` to the client `times` times, sending out what it queues after each (such as
    /// the ACK owed for each SETTINGS), as a connection's loop does between reads: nghttp2 ends a
    /// connection that leaves more than 1,000 ACKs unsent.
    func serve(bytes: [UInt8], times: Int) {
        for _ in 0..<times {
            serve(bytes: bytes)
            while multiplexer.produce(upTo: 1 << 20, now: now, into: { _ in }) > 0 {}
        }
        collect()
    }

    /// The connection under the multiplexer closed.
    func closeTransport(_ failure: TransportError? = nil) {
        multiplexer.transportEnded(failure)
        collect()
    }

    /// Moves the clock and lets the multiplexer apply its timers.
    func advance(by duration: Duration) {
        now = now + duration
        multiplexer.tick(now: now)
        collect()
    }

    func response(_ id: UInt64) -> HTTP2Response? { try? results[id]?.get() }

    func failure(_ id: UInt64) -> HTTP2StreamFailure? {
        guard case let .failure(failure)? = results[id] else { return nil }
        return failure
    }

    private func collect() {
        for head in multiplexer.takeHeads() { heads[head.id] = head.head }
        for finished in multiplexer.takeFinished() {
            if results[finished.id] != nil { finishedTwice.append(finished.id) }
            results[finished.id] = finished.result
            events += finished.events
            eventsByExchange[finished.id] = finished.events
        }
    }

    static func get(_ path: String) -> HTTPRequest {
        HTTPRequest(url: URL(string: "https://api.example.com\(path)")!)
    }

    static func post(_ path: String, body: Data) -> HTTPRequest {
        HTTPRequest(method: .post, url: URL(string: "https://api.example.com\(path)")!, body: HTTPBody(body))
    }

    /// `count` DATA frames of `size` bytes each on `stream`, the last with END_STREAM when `end`.
    static func data(stream: UInt32, frames count: Int, size: Int = 16_384, end: Bool = false) -> [UInt8] {
        (0..<count).flatMap { index in
            HTTP2Frame.data(
                stream: stream, Array(repeating: UInt8(truncatingIfNeeded: index), count: size),
                endStream: end && index == count - 1
            ).bytes
        }
    }

    static let ok: [(String, String)] = [(":status", "200"), ("content-type", "text/plain")]
}

extension HTTP2Frame {
    /// The error code of a RST_STREAM or GOAWAY frame.
    var errorCode: UInt32? {
        let offset: Int
        switch kind {
        case .rstStream: offset = 0
        case .goAway: offset = 4
        default: return nil
        }
        guard payload.count >= offset + 4 else { return nil }
        return payload[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
