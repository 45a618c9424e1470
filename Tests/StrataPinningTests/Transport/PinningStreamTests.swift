import Dispatch
import Foundation
import Strata
@testable import StrataPinning
import StrataTesting
import Testing
import TestServer
import TLSTestServer

/// `PinningTransport.stream` over pinned HTTP/1.1: the head and the body's first bytes reach
/// `consume` while the server still holds the rest, and redirects are decided on the head.
@Suite("PinningTransport.stream hands a pinned HTTP/1.1 response over as it arrives")
struct PinningStreamTests {
    @Test("the first bytes of a body reach consume before the server sends the rest", arguments: Streaming.Framing.allCases)
    func firstBytesBeforeTheRest(framing: Streaming.Framing) async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        let gate = DispatchSemaphore(value: 0)
        defer { gate.signal() }
        server.http.route("/drip", response: Streaming.gated("first", then: "rest", framing: framing, gate: gate))
        let transport = try Streaming.transport(threads: ConnectionThreadLimit(maximum: 8))
        let (status, first, rest) = try await transport.stream(Pinning.get(server.url("/drip"))) { head, body in
            var chunks = body.makeAsyncIterator()
            let first = String(decoding: try await chunks.next() ?? [], as: UTF8.self)
            // The server sends the rest only now: without streaming this exchange could not end.
            gate.signal()
            var rest = ""
            while let chunk = try await chunks.next() { rest += String(decoding: chunk, as: UTF8.self) }
            return (head.statusCode, first, rest)
        }
        #expect(status == 200)
        #expect(first == "first")
        #expect(rest == "rest")
    }

    @Test("a redirect is followed on its head and never reaches consume; the follow-up streams")
    func redirectDecidedOnHead() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/from", response: .init(status: 302, headers: [("Location", "/to")], text: "moved"))
        server.http.route("/to", response: .init(text: "arrived"))
        let transport = try Streaming.transport(threads: ConnectionThreadLimit(maximum: 8))
        let calls = LockedValue(0)
        let (status, url, text) = try await transport.stream(Pinning.get(server.url("/from"))) { head, body in
            calls.withLock { $0 += 1 }
            return (head.statusCode, head.url, String(decoding: try await body.collect(upTo: 1024), as: UTF8.self))
        }
        #expect(calls.withLock { $0 } == 1)
        #expect(status == 200)
        #expect(url?.path == "/to")
        #expect(text == "arrived")
        // The redirect's small body was drained, so the follow-up reused its connection.
        #expect(server.http.connectionCount == 1)
    }

    @Test("a response with no body ends the body at once and keeps the connection")
    func emptyBody() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/none", response: .init(status: 204))
        let threads = ConnectionThreadLimit(maximum: 8)
        let transport = try Streaming.transport(threads: threads)
        let count = try await transport.stream(Pinning.get(server.url("/none"))) { _, body in
            try await body.collect(upTo: 16).count
        }
        #expect(count == 0)
        #expect(transport.poolCounts(host: "localhost", port: server.port) == (open: 1, waiting: 0))
        #expect(threads.inUse == 1)
    }
}
