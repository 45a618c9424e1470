import Dispatch
import Foundation
import Strata
@testable import StrataPinning
import StrataTesting
import Testing
import TestServer
import TLSTestServer

/// What happens to a pinned HTTP/1.1 connection when `consume` stops before the body's end:
/// never a leaked connection or thread, never a dirty connection reused.
@Suite("PinningTransport.stream releases the connection when consume stops early")
struct PinningStreamReleaseTests {
    struct Stop: Error {}

    @Test("a consumer that returns after the first chunk of 4 MiB closes the connection; nothing is left and the next request works")
    func largeRestCloses() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/big", response: Streaming.generated(size: 4 << 20))
        server.http.route("/small", response: .init(text: "small"))
        let threads = ConnectionThreadLimit(maximum: 8)
        let transport = try Streaming.transport(threads: threads)
        let first = try await transport.stream(Pinning.get(server.url("/big"))) { _, body in
            var chunks = body.makeAsyncIterator()
            return try await chunks.next()?.count ?? 0
        }
        #expect(first > 0)
        // 4 MiB less one chunk is far more than is worth draining: the connection was closed.
        #expect(transport.poolCounts(host: "localhost", port: server.port) == (open: 0, waiting: 0))
        #expect(threads.inUse == 0)
        #expect(try await transport.send(Pinning.get(server.url("/small"))).text == "small")
        #expect(server.http.connectionCount == 2)
        #expect(threads.inUse == 1)
    }

    @Test("a consumer that throws with a small rest unread leaves the connection drained and reused")
    func smallRestDrained() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        let gate = DispatchSemaphore(value: 0)
        defer { gate.signal() }
        server.http.route(
            "/drip",
            response: Streaming.gated(
                "first", then: String(repeating: "r", count: 10_000),
                framing: .chunked, gate: gate))
        server.http.route("/small", response: .init(text: "small"))
        let threads = ConnectionThreadLimit(maximum: 8)
        let transport = try Streaming.transport(threads: threads)
        await #expect(throws: Stop.self) {
            try await transport.stream(Pinning.get(server.url("/drip"))) { _, body in
                var chunks = body.makeAsyncIterator()
                _ = try await chunks.next()
                gate.signal()
                throw Stop()
            }
        }
        #expect(transport.poolCounts(host: "localhost", port: server.port) == (open: 1, waiting: 0))
        #expect(threads.inUse == 1)
        #expect(try await transport.send(Pinning.get(server.url("/small"))).text == "small")
        #expect(server.http.connectionCount == 1)
    }

    @Test("cancelling the consumer's task while the server stalls ends the exchange and frees the connection")
    func cancellationEndsTheExchange() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        let gate = DispatchSemaphore(value: 0)
        defer { gate.signal() }
        server.http.route("/stall", response: Streaming.gated("first", then: "never", framing: .chunked, gate: gate))
        server.http.route("/small", response: .init(text: "small"))
        let threads = ConnectionThreadLimit(maximum: 8)
        let transport = try Streaming.transport(threads: threads)
        let (reading, started) = AsyncStream<Void>.makeStream()
        let task = Task {
            try await transport.stream(Pinning.get(server.url("/stall"))) { _, body in
                for try await _ in body { started.yield() }
            }
        }
        for await _ in reading { break }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(transport.poolCounts(host: "localhost", port: server.port) == (open: 0, waiting: 0))
        #expect(threads.inUse == 0)
        #expect(try await transport.send(Pinning.get(server.url("/small"))).text == "small")
    }
}
