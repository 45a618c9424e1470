import Dispatch
import Foundation
import Strata
@testable import StrataPinning
import Testing
import TestServer
import TestSupport
import TLSTestServer

/// `stream` over pinned HTTP/2, against a scripted server that sends each DATA frame when the test
/// says: the head and the body's first bytes reach `consume` as they arrive, a consumer that stops
/// (or throws, or is cancelled) gets its stream reset and leaves the connection carrying the next
/// request, and the deadline and idle timeout still apply while the body streams.
@Suite("PinningTransport.stream streams over HTTP/2 (scripted server)")
struct PinningStreamHTTP2Tests {
    struct Stop: Error {}

    /// What a scripted connection saw of the client after the responses it was told to send.
    final class Seen: Sendable {
        private let state = LockedValue((resets: [(stream: UInt32, code: UInt32)](), requests: 0))
        func reset(_ stream: UInt32, _ code: UInt32) { state.withLock { $0.resets.append((stream, code)) } }
        func request() -> Int {
            state.withLock { state in
                state.requests += 1; return state.requests
            }
        }
        var resets: [(stream: UInt32, code: UInt32)] { state.withLock { $0.resets } }
    }

    static func transport(
        requestTimeout: Duration = TestTimeScale.scaled(.seconds(20)),
        idleReadTimeout: Duration = .seconds(30)
    ) throws -> PinningTransport {
        try Pinning.transport(
            configuration: .init(
                idleReadTimeout: idleReadTimeout, requestTimeout: requestTimeout,
                httpVersion: .http2Only))
    }

    /// Serves `connection` until the client closes it: request number `special` (counted from 1,
    /// on every connection of the server) gets `first`, which writes what it likes on the stream,
    /// every other one a short "small" response; RST_STREAMs are noted, SETTINGS and PINGs answered.
    static func serve(_ connection: HTTP2ScriptConnection, seen: Seen, special: Int = 1, first: (UInt32) -> Void) {
        connection.handshake()
        while let frame = connection.readFrame() {
            switch frame.kind {
            case .headers:
                if seen.request() == special {
                    first(frame.streamID)
                } else {
                    connection.respond(stream: frame.streamID, body: "small")
                }
            case .rstStream:
                seen.reset(frame.streamID, frame.payload.reduce(0) { $0 << 8 | UInt32($1) })
            case .settings where frame.flags & HTTP2Frame.ack == 0:
                connection.write(.settings(ack: true))
            case .ping where frame.flags & HTTP2Frame.ack == 0:
                connection.write(.ping(ack: true, payload: frame.payload))
            default:
                break
            }
        }
    }

    @Test("the first chunk of a slowly dripped body reaches consume before the server sends the last")
    func drippedBody() async throws {
        let gate = DispatchSemaphore(value: 0)
        defer { gate.signal() }
        let lastSent = LockedValue(false)
        let seen = Seen()
        let server = try ScriptedHTTP2Server { connection in
            Self.serve(connection, seen: seen) { stream in
                connection.write(.headers(stream: stream, [(":status", "200")]), .data(stream: stream, Array("first".utf8)))
                // Bounded so a failing test cannot leave the server's thread waiting for ever.
                _ = gate.wait(timeout: .now() + 30)
                lastSent.withLock { $0 = true }
                connection.write(.data(stream: stream, Array("last".utf8), endStream: true))
            }
        }
        let transport = try Self.transport()
        let (status, firstChunk, sentBeforeFirst, rest) = try await transport.stream(Pinning.get(server.url("/drip"))) { head, body in
            var chunks = body.makeAsyncIterator()
            let first = try await chunks.next() ?? []
            let sentBefore = lastSent.withLock { $0 }
            gate.signal()
            var rest: [UInt8] = []
            while let chunk = try await chunks.next() { rest += chunk }
            return (head.statusCode, String(decoding: first, as: UTF8.self), sentBefore, String(decoding: rest, as: UTF8.self))
        }
        #expect(status == 200)
        #expect(firstChunk == "first")
        #expect(!sentBeforeFirst)
        #expect(rest == "last")
        #expect(seen.resets.isEmpty)
        #expect(transport.http2Counts(host: "localhost", port: server.port) == (connections: 1, streams: 0))
    }

    @Test(
        "a consumer that stops early (returns or throws) gets its stream reset with CANCEL; the connection carries the next request and no stream is left",
        arguments: [false, true])
    func stopEarly(throwing: Bool) async throws {
        let seen = Seen()
        let server = try ScriptedHTTP2Server { connection in
            Self.serve(connection, seen: seen) { stream in
                // A head and a first window's worth of a body far larger, never finished.
                connection.write(.headers(stream: stream, [(":status", "200"), ("content-length", String(64 << 20))]))
                for _ in 0..<4 { connection.write(.data(stream: stream, [UInt8](repeating: 7, count: 16_384))) }
            }
        }
        let transport = try Self.transport()
        let read: Int
        do {
            read = try await transport.stream(Pinning.get(server.url("/big"))) { _, body in
                var chunks = body.makeAsyncIterator()
                let count = try await chunks.next()?.count ?? 0
                if throwing { throw Stop() }
                return count
            }
            #expect(!throwing)
        } catch is Stop {
            #expect(throwing)
            read = 1
        }
        #expect(read > 0)
        // When stream returns, the stream was given back: none is left on the connection.
        #expect(transport.http2Counts(host: "localhost", port: server.port) == (connections: 1, streams: 0))
        #expect(try await transport.send(Pinning.get(server.url("/small"))).text == "small")
        #expect(server.connectionCount == 1)
        #expect(seen.resets.map(\.stream) == [1])
        #expect(seen.resets.first?.code == HTTP2ErrorCode.cancel.rawValue)
        #expect(transport.http2Counts(host: "localhost", port: server.port) == (connections: 1, streams: 0))
    }

    @Test("cancelling the consumer's task while the server stalls resets the stream; the connection carries the next request")
    func cancellationEndsTheStream() async throws {
        let seen = Seen()
        let server = try ScriptedHTTP2Server { connection in
            Self.serve(connection, seen: seen) { stream in
                connection.write(.headers(stream: stream, [(":status", "200")]), .data(stream: stream, Array("first".utf8)))
            }
        }
        let transport = try Self.transport()
        let (reading, started) = AsyncStream<Void>.makeStream()
        let task = Task {
            try await transport.stream(Pinning.get(server.url("/stall"))) { _, body in
                for try await _ in body { started.yield() }
            }
        }
        for await _ in reading { break }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(transport.http2Counts(host: "localhost", port: server.port) == (connections: 1, streams: 0))
        #expect(try await transport.send(Pinning.get(server.url("/small"))).text == "small")
        #expect(server.connectionCount == 1)
        #expect(seen.resets.map(\.stream) == [1])
    }

    @Test("the whole-request deadline applies while the body streams: a server that stalls mid-body fails the reader with timedOut")
    func deadlineWhileStreaming() async throws {
        let seen = Seen()
        // The second request stalls: the first opens the connection, so the stalled one's short
        // deadline is spent on its body, not on a handshake slowed by a loaded machine.
        let server = try ScriptedHTTP2Server { connection in
            Self.serve(connection, seen: seen, special: 2) { stream in
                connection.write(.headers(stream: stream, [(":status", "200")]), .data(stream: stream, Array("first".utf8)))
            }
        }
        // An idle timeout that never fires first; the stalled request's deadline (a timeout of its
        // own, which the head beats with room to spare) is shorter than the transport's, which the
        // requests around it have.
        let transport = try Self.transport(idleReadTimeout: .seconds(3600))
        #expect(try await transport.send(Pinning.get(server.url("/small"))).text == "small")
        let reading = LockedValue(false)
        let error = await Self.error {
            try await RequestDeadline.withTimeout(TestTimeScale.scaled(.seconds(3))) {
                try await transport.stream(Pinning.get(server.url("/stall"))) { _, body in
                    reading.withLock { $0 = true }
                    for try await _ in body {}
                }
            }
        }
        #expect(reading.withLock { $0 }, "the deadline passed before the head: \(String(describing: error))")
        #expect((error as? TransportError)?.kind == .timedOut)
        #expect(transport.http2Counts(host: "localhost", port: server.port).streams == 0)
        // The next request on the connection is read after the reset, so the reset was seen.
        #expect(try await transport.send(Pinning.get(server.url("/small"))).text == "small")
        #expect(seen.resets.map(\.stream) == [3])
        #expect(server.connectionCount == 1)
    }

    @Test("the idle timeout applies while the body streams and the reader keeps up: a server that stalls fails the reader with timedOut")
    func idleTimeoutWhileStreaming() async throws {
        let seen = Seen()
        let server = try ScriptedHTTP2Server { connection in
            Self.serve(connection, seen: seen) { stream in
                connection.write(.headers(stream: stream, [(":status", "200")]), .data(stream: stream, Array("first".utf8)))
            }
        }
        let transport = try Self.transport(
            requestTimeout: TestTimeScale.scaled(.seconds(60)),
            idleReadTimeout: TestTimeScale.scaled(.seconds(2)))
        let reading = LockedValue(false)
        let error = await Self.error {
            try await transport.stream(Pinning.get(server.url("/stall"))) { _, body in
                reading.withLock { $0 = true }
                for try await _ in body {}
            }
        }
        #expect(reading.withLock { $0 }, "the idle timeout passed before the head: \(String(describing: error))")
        #expect((error as? TransportError)?.kind == .timedOut)
        #expect((error as? TransportError)?.message.contains("idle timeout") == true)
        #expect(transport.http2Counts(host: "localhost", port: server.port).streams == 0)
    }

    @Test("events are told for a stream that fails before its head, and for one that ends after it")
    func eventsBothWays() async throws {
        let seen = Seen()
        let server = try ScriptedHTTP2Server { connection in
            Self.serve(connection, seen: seen) { stream in
                connection.write(.rstStream(stream: stream, code: HTTP2ErrorCode.internalError.rawValue))
            }
        }
        let events = PinningEventLog()
        let pinned = try Self.transport()
        let transport = events.observing(pinned)
        let error = await Self.error {
            try await transport.stream(Pinning.get(server.url("/reset"))) { _, _ in }
        }
        #expect((error as? TransportError)?.underlying as? HTTP2Error == .streamReset(.internalError))
        #expect(events.all.contains { if case .streamFailed = $0 { true } else { false } })
        let text = try await transport.stream(Pinning.get(server.url("/small"))) { _, body in
            String(decoding: try await body.collect(upTo: 100), as: UTF8.self)
        }
        #expect(text == "small")
        #expect(events.http2Responses == 1)
    }

    @Test("a consumer that reads nothing and returns still sees the head; a HEAD's body is empty whatever content-length says")
    func headOnlyAndEmptyBodies() async throws {
        let seen = Seen()
        let server = try ScriptedHTTP2Server { connection in
            Self.serve(connection, seen: seen) { stream in
                connection.write(.headers(stream: stream, [(":status", "200"), ("content-length", "1000")], endStream: true))
            }
        }
        let transport = try Self.transport()
        let request = HTTPRequest(method: .head, url: server.url("/head"))
        let (status, length, body) = try await transport.stream(request) { head, body in
            (head.statusCode, head.headers["content-length"], try await body.collect(upTo: 10))
        }
        #expect(status == 200)
        #expect(length == "1000")
        #expect(body.isEmpty)
        #expect(seen.resets.isEmpty)
    }

    /// What `body` throws, or nil.
    static func error(_ body: () async throws -> Void) async -> (any Error)? {
        do {
            try await body()
            return nil
        } catch {
            return error
        }
    }
}

/// `stream` and uploads over pinned HTTP/2 against a real nginx: bodies both ways, read and
/// written as they move, a consumer that stops early leaving the connection to the next request.
@Suite(
    "PinningTransport streams bodies over HTTP/2 (nginx)",
    .enabled(if: NginxServer.isInstalled, Comment(rawValue: NginxServer.missing)))
struct PinningStreamHTTP2NginxTests {
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-h2-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func transport() throws -> PinningTransport {
        try Pinning.transport(configuration: .init(requestTimeout: TestTimeScale.scaled(.seconds(60)), httpVersion: .http2Only))
    }

    @Test("a 4 MiB body arrives through consume intact, in many chunks; file and single-pass uploads of unknown length are streamed")
    func bothWays() async throws {
        let payload = Payload.bytes(4 << 20, seed: 3)
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("upload.bin")
        try payload.write(to: file)
        let server = try await NginxServer.start(
            directives: """
                location /big.bin { }
                location /uploads/ { alias \(directory.path)/; dav_methods PUT; client_max_body_size 0; }
                """, files: ["big.bin": payload])
        let events = PinningEventLog()
        let pinned = try Self.transport()
        let transport = events.observing(pinned)
        let (status, chunks, body) = try await transport.stream(Pinning.get(server.url("/big.bin"))) { head, body in
            var received = Data()
            var chunks = 0
            for try await chunk in body {
                received.append(contentsOf: chunk)
                chunks += 1
            }
            return (head.statusCode, chunks, received)
        }
        #expect(status == 200)
        #expect(body == payload)
        #expect(chunks > 1)

        let fromFile = try await transport.send(
            HTTPRequest(
                method: .put, url: server.url("/uploads/file.bin"),
                body: try HTTPBody(contentsOf: file)))
        #expect(fromFile.statusCode == 201)
        #expect(try Data(contentsOf: directory.appendingPathComponent("file.bin")) == payload)

        let (pieces, producer) = AsyncStream<ArraySlice<UInt8>>.makeStream()
        let streamed = Task {
            try await transport.stream(
                HTTPRequest(
                    method: .put, url: server.url("/uploads/stream.bin"),
                    body: HTTPBody(pieces, length: nil))
            ) { head, _ in head.statusCode }
        }
        for offset in stride(from: 0, to: payload.count, by: 100_000) {
            producer.yield(Array(payload[offset..<min(offset + 100_000, payload.count)])[...])
        }
        producer.finish()
        #expect(try await streamed.value == 201)
        #expect(try Data(contentsOf: directory.appendingPathComponent("stream.bin")) == payload)
        #expect(events.http2Responses == 3)
        #expect(events.http1Responses == 0)
        #expect(pinned.http2Counts(host: "localhost", port: server.port) == (connections: 1, streams: 0))
    }

    @Test("consumers that stop early on 64 MiB bodies (returning, throwing) leave one connection and no stream; the next request works")
    func stopEarly() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("big.bin")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 64 << 20)
        try handle.close()
        let server = try await NginxServer.start(
            directives: """
                location /big.bin { alias \(file.path); }
                location /small { return 200 "small"; }
                """)
        let transport = try Self.transport()
        for round in 0..<4 {
            let read = try? await transport.stream(Pinning.get(server.url("/big.bin"))) { _, body in
                var chunks = body.makeAsyncIterator()
                let count = try await chunks.next()?.count ?? 0
                if round % 2 == 1 { throw PinningStreamHTTP2Tests.Stop() }
                return count
            }
            #expect(round % 2 == 1 || (read ?? 0) > 0)
            #expect(transport.http2Counts(host: "localhost", port: server.port) == (connections: 1, streams: 0))
        }
        #expect(try await transport.send(Pinning.get(server.url("/small"))).text == "small")
        #expect(transport.http2Counts(host: "localhost", port: server.port) == (connections: 1, streams: 0))
    }
}
