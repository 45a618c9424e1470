import Foundation
import Strata
@testable import StrataPinning
import Testing
import TLSTestServer

/// HTTP/2 for pinned hosts against nghttpd (Debian `nghttp2-server`), for what nginx cannot be
/// told to do: lower SETTINGS_MAX_CONCURRENT_STREAMS, echo uploads, send trailers. Skipped, with
/// the reason, where nghttpd is not installed; `.ci/run` installs it.
@Suite(
    "PinningTransport over HTTP/2 against nghttpd",
    .enabled(if: NGHTTPDServer.isInstalled, Comment(rawValue: NGHTTPDServer.missing)))
struct HTTP2NGHTTPDTests {
    @Test(
        "a server that allows 2 concurrent streams gets 20 concurrent requests, none refused: when a connection is full the pool opens another, up to its per-host limit"
    )
    func loweredMaxConcurrentStreams() async throws {
        let server = try await NGHTTPDServer.start(options: ["--max-concurrent-streams=2"], files: ["page": Data("page".utf8)])
        let events = PinningEventLog()
        let transport = events.observing(try Pinning.transport())
        // Learn the server's SETTINGS first (the event reports it), so that no request is sent
        // beyond its limit.
        #expect(try await transport.send(Pinning.get(server.url("/page"))).text == "page")
        let url = server.url("/page")
        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { try await transport.send(Pinning.get(url)).text } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(bodies == Array(repeating: "page", count: 20))
        #expect(events.openedCount > 1)
        #expect(events.openedCount <= PinningTransport.Configuration().maxConnectionsPerHost)
        #expect(events.retries.isEmpty)
        #expect(events.all.contains { if case .http2SettingsReceived(_, 2) = $0 { true } else { false } })
    }

    @Test("a 10 MB upload is echoed back intact (request body flow control both ways)")
    func tenMegabyteEcho() async throws {
        let server = try await NGHTTPDServer.start(options: ["--echo-upload"])
        let payload = Payload.bytes(10 * 1024 * 1024, seed: 3)
        let transport = try Pinning.transport()
        let response = try await transport.send(Pinning.post(server.url("/echo"), body: payload))
        #expect(response.statusCode == 200)
        #expect(response.body == payload)
    }

    @Test("trailers are read and kept out of the response's header fields")
    func trailers() async throws {
        let server = try await NGHTTPDServer.start(options: ["--trailer=x-checksum: abc123"], files: ["data": Data("with trailers".utf8)])
        let events = PinningEventLog()
        let transport = events.observing(try Pinning.transport())
        let response = try await transport.send(Pinning.get(server.url("/data")))
        #expect(response.text == "with trailers")
        #expect(response.headers["x-checksum"] == nil)
        #expect(events.http2Responses == 1)
    }
}
