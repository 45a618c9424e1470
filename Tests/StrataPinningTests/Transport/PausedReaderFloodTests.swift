import Foundation
import Strata
@testable import StrataPinning
import Testing
import TestServer
import TestSupport
import TLSTestServer

/// Runs ``PausedReaderFloodMemoryTests`` in a process of its own: the resident set is the whole
/// process's, and the suites running beside it in this one would be counted as the flood's.
@Suite(
    "Memory held for paused readers of a one-byte flood is measured in a process of its own",
    .disabled(if: MeasuringProcess.isMeasuring, "this is the measuring process"),
    .disabled(if: !ResidentMemory.isMeaningful, "memory bounds mean nothing under a sanitizer"),
    .timeLimit(.minutes(5)))
struct PausedReaderFloodIsolationTests {
    @Test("the flood memory tests pass in a process where nothing else runs")
    func isolated() async throws {
        let (status, output) = try await MeasuringProcess.run(filter: "PausedReaderFloodMemoryTests")
        let measured = output.split(separator: "\n").filter { $0.contains("resident growth") && $0.hasSuffix("KiB") }
        for line in measured { print(line) }
        #expect(status == 0, "\(output)")
        #expect(measured.count == 2, "the child did not run both flood tests (HTTP/2, HTTP/1.1): \(output)")
    }
}

/// Issue 39, finding 1: a hostile pinned server answers `stream` requests one payload byte at a
/// time (HTTP/2 DATA frames each followed by a PING ACK so nothing can merge them; HTTP/1.1
/// chunks of one byte) while every reader is paused. What the client holds for those readers is
/// bounded in memory, not only in payload bytes: before, each byte cost an array and a slice in
/// the body channel (1 MiB of payload held 85 MB). Runs only in the process
/// ``PausedReaderFloodIsolationTests`` starts for it.
@Suite(
    "Paused readers of a server that sends one byte at a time hold their payload, not 80 bytes a byte",
    .serialized, .timeLimit(.minutes(3)),
    .enabled(if: MeasuringProcess.isMeasuring, "runs in the process PausedReaderFloodIsolationTests starts"))
struct PausedReaderFloodMemoryTests {
    /// Streamed requests at once: on one HTTP/2 connection, or on as many HTTP/1.1 connections.
    static let readers = 8
    /// What the server tries to send each reader; flow control (HTTP/2 windows, HTTP/1.1 reads
    /// that stop) decides how much of it the client takes while its readers are paused.
    static let bytesPerReader = 4 << 20
    /// The bound for all readers together: the HTTP/2 stream windows alone let 8 MiB of
    /// payload in, so this leaves room for little more than the payload itself.
    static let maxResidentGrowth = 16 << 20

    @Test("8 paused HTTP/2 streams flooded with 1-byte DATA frames between PING ACKs: resident growth under 16 MiB")
    func http2() async throws {
        let flooded = Signal()
        let start = Gate()
        let server = try ScriptedHTTP2Server { connection in
            connection.handshake()
            let streams = connection.awaitRequests(Self.readers)
            let batches = streams.map(Self.floodBatch)
            for stream in streams {
                connection.write(.headers(stream: stream, [(":status", "200"), ("content-type", "text/event-stream")]))
            }
            start.wait()
            Self.flood(connection, streams: streams, batches: batches, flooded: flooded)
        }
        defer { server.stop() }
        let transport = try Pinning.transport(
            configuration: .init(requestTimeout: .seconds(120), maxConnectionsPerHost: 1, httpVersion: .http2Only))
        let growth = try await Self.measure(transport, url: { server.url("/flood/\($0)") }) {
            start.open()
            await flooded.wait(count: 1)
        }
        #expect(transport.http2Counts(host: "localhost", port: server.port).connections == 1, "all streams shared one connection")
        #expect(growth < Self.maxResidentGrowth, "resident set grew by \(growth >> 20) MiB")
        print("8 paused HTTP/2 streams of 1-byte DATA frames: resident growth \(growth >> 10) KiB")
    }

    @Test("8 paused HTTP/1.1 responses of 1-byte chunks, sixteen to a TLS record: resident growth under 16 MiB")
    func http1() async throws {
        let paused = Signal()
        StreamedResponse.waitingForReaderHook.withLock { $0 = { paused.send() } }
        defer { StreamedResponse.waitingForReaderHook.withLock { $0 = nil } }
        let server = try TLSLoopbackServer(identity: .leafOnly)
        defer { server.http.stop() }
        // Sixteen 1-byte chunks a write, so a TLS record: small pieces at the pace of a test.
        let chunks = Data(String(repeating: "1\r\nx\r\n", count: 16).utf8)
        for index in 0..<Self.readers {
            server.http.route(
                "/flood/\(index)",
                response: .streamed(headers: [("Transfer-Encoding", "chunked")]) { write in
                    // The client gets no bigger pieces than it reads at once, and stops reading
                    // once its reader is far enough behind.
                    for _ in 0..<(Self.bytesPerReader / 16) where !write(chunks) { return }
                    _ = write(Data("0\r\n\r\n".utf8))
                })
        }
        let transport = try Pinning.transport(
            configuration: .init(requestTimeout: .seconds(120), maxConnectionsPerHost: Self.readers, httpVersion: .http1Only))
        // Each connection's thread stops reading once more than the channel's high watermark
        // waits for its paused reader: everything it will hold is held then.
        let growth = try await Self.measure(transport, url: { server.url("/flood/\($0)") }) {
            await paused.wait(count: Self.readers)
        }
        #expect(server.http.connectionCount == Self.readers)
        #expect(growth < Self.maxResidentGrowth, "resident set grew by \(growth >> 20) MiB")
        print("8 paused HTTP/1.1 responses of 1-byte chunks: resident growth \(growth >> 10) KiB")
    }

    // MARK: - Support

    /// Streams ``readers`` requests whose readers take the head and then read nothing; once every
    /// head has arrived, runs `flood` (which returns when the client holds all it will), and
    /// returns the resident set's growth from just before it. Then the readers give up.
    private static func measure(
        _ transport: PinningTransport, url: @escaping @Sendable (Int) -> URL, flood: () async -> Void
    ) async throws -> Int {
        let heads = Signal()
        let release = Gate()
        let readers = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<Self.readers {
                    group.addTask {
                        try await transport.stream(Pinning.get(url(index))) { head, _ in
                            #expect(head.statusCode == 200)
                            heads.send()
                            await release.waitAsync()
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        await heads.wait(count: Self.readers)
        let baseline = ResidentMemory.bytes
        ResidentMemory.resetPeak()
        await flood()
        let growth = max(ResidentMemory.bytes, ResidentMemory.peak) - baseline
        release.open()
        try await readers.value
        return growth
    }

    /// 1-byte DATA frames on a stream, each followed by an unsolicited PING ACK.
    static let framesPerBatch = 4_096

    /// ``framesPerBatch`` frames for `stream`, built before the flood so the measurement does not
    /// count them.
    private static func floodBatch(stream: UInt32) -> [UInt8] {
        let pingAck = HTTP2Frame.ping(ack: true, payload: Array("unasked!".utf8)).bytes
        return Array((0..<framesPerBatch).map { _ in HTTP2Frame.data(stream: stream, [0x78]).bytes + pingAck }.joined())
    }

    /// Sends each stream up to ``bytesPerReader`` in `batches` of 1-byte DATA frames, as far as
    /// the stream windows allow; then a PING whose ACK says the client has processed every frame
    /// before it (`flooded`). WINDOW_UPDATEs are honoured (a paused reader sends none), and the
    /// script ends when the client closes.
    private static func flood(_ connection: HTTP2ScriptConnection, streams: [UInt32], batches: [[UInt8]], flooded: Signal) {
        let marker = Array("flooded!".utf8)
        // The client's advertised stream window: its SETTINGS were acknowledged by the handshake.
        var windows = [Int](repeating: HTTP2Multiplexer.streamWindowBytes, count: streams.count)
        var sent = [Int](repeating: 0, count: streams.count)
        func sendAllowed() -> Bool {
            var progressed = true
            while progressed {
                progressed = false
                for index in streams.indices {
                    let frames = min(windows[index], Self.bytesPerReader - sent[index], Self.framesPerBatch)
                    guard frames > 0 else { continue }
                    let batch = batches[index]
                    let bytes = frames == Self.framesPerBatch ? batch : Array(batch[0..<(frames * batch.count / Self.framesPerBatch)])
                    guard connection.write(bytes: bytes) else { return false }
                    windows[index] -= frames
                    sent[index] += frames
                    progressed = true
                }
            }
            return connection.write(.ping(payload: marker))
        }
        guard sendAllowed() else { return }
        while let frame = connection.readFrame() {
            switch frame.kind {
            case .ping where frame.flags & HTTP2Frame.ack != 0 && frame.payload == marker:
                flooded.send()
            case .windowUpdate where frame.streamID != 0:
                guard let index = streams.firstIndex(of: frame.streamID) else { continue }
                windows[index] += Int(frame.payload.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7FFF_FFFF)
                guard sendAllowed() else { return }
            default:
                break
            }
        }
    }
}

/// Counts events sent from any thread; a task waits until a number of them arrived.
private final class Signal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() { (stream, continuation) = AsyncStream.makeStream() }

    func send() { continuation.yield() }

    /// Waits until `count` more events than the waits before took have arrived.
    func wait(count: Int) async {
        var iterator = stream.makeAsyncIterator()
        for _ in 0..<count { _ = await iterator.next() }
    }
}

/// A gate that a server thread blocks at, or a task waits at, until the test opens it.
private final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let state = LockedValue((isOpen: false, waiters: [CheckedContinuation<Void, Never>]()))

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
        semaphore.signal()
    }

    /// Blocks the calling (server) thread until ``open()``; for one thread.
    func wait() { semaphore.wait() }

    /// Suspends the calling task until ``open()``.
    func waitAsync() async {
        await withCheckedContinuation { continuation in
            let proceed = state.withLock { state -> Bool in
                guard !state.isOpen else { return true }
                state.waiters.append(continuation)
                return false
            }
            if proceed { continuation.resume() }
        }
    }
}
