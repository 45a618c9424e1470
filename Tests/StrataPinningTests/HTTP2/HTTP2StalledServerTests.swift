import Foundation
import Strata
@testable import StrataPinning
import StrataTesting
import Testing
import TestSupport
import TLSTestServer

/// A server that stops reading while the client still has bytes for it: nothing the server does
/// (it stays silent) may keep a connection, its thread or its unit of the connection limit.
@Suite("HTTP/2 against a server that stops reading")
struct HTTP2StalledServerTests {
    /// Waits (checking every few milliseconds) until `condition` holds or `limit` passes; a hang
    /// guard for work on another thread, not a timing claim.
    private static func waitUntil(within limit: Duration, _ condition: () -> Bool) async throws -> Bool {
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }

    @Test(
        "an upload the server stopped reading, abandoned at the request deadline: the connection still ends (its unstuck GOAWAY has a deadline), its unit comes back, and the host takes new requests"
    )
    func stalledUploadConnectionEnds() async throws {
        let release = DispatchSemaphore(value: 0)
        defer { release.signal() }
        let server = try ScriptedHTTP2Server { connection in
            // The largest windows, so the upload fills every buffer between client and server.
            connection.handshake(settings: [(HTTP2Frame.initialWindowSize, 0x7FFF_FFFF)])
            connection.write(.windowUpdate(stream: 0, increment: 0x7FFF_FFFF - 65_535))
            if connection.index == 0 {
                connection.awaitRequests(1)
                // Reads nothing more. A few WINDOW_UPDATEs, while the request runs, wake the client
                // to top its output up until the buffers on the way take nothing (the kernel frees
                // some room now and then, but not enough to wake a writer); then silence, PINGs
                // unanswered.
                for _ in 0..<20 {
                    connection.write(.windowUpdate(stream: 0, increment: 1))
                    usleep(20_000)
                }
                release.wait()
            } else {
                for stream in connection.awaitRequests(1) { connection.respond(stream: stream, body: "fresh") }
            }
            connection.drain()
        }
        let threads = ConnectionThreadLimit(maximum: 4)
        let pins = try Pinning.pins(Fixtures.Pin.leafEC)
        // One connection per host, so a connection that never ended would hold the host's only
        // place; no PING and no read timeout during the test: only the write deadline can end it.
        // The deadline also bounds the last GET (a new connection and its handshake): 2 s was
        // once too short for it in CI, with the suite's heaviest tests on both cores.
        let configuration = PinningTransport.Configuration(
            idleReadTimeout: .seconds(3600), requestTimeout: TestTimeScale.scaled(.milliseconds(5000)),
            maxConnectionsPerHost: 1, idleConnectionTimeout: .milliseconds(50), http2PingInterval: .seconds(3600))
        let transport = PinningTransport(
            inner: CannedRoutesTransport(routes: []), pinnedDomains: ["localhost": pins],
            trustRoots: try Pinning.privateCA(), configuration: configuration,
            clock: ContinuousClock(), threads: threads)
        let upload = await Pinning.error {
            try await transport.send(Pinning.post(server.url("/upload"), body: Data(count: 32 << 20)))
        }
        #expect((upload as? TransportError)?.kind == .timedOut)
        // Idle now, it sends GOAWAY, which cannot leave behind the upload's unsent bytes.
        let ended = try await Self.waitUntil(within: TestTimeScale.scaled(.seconds(10))) {
            threads.inUse == 0 && transport.http2Counts(host: "localhost", port: server.port).connections == 0
        }
        #expect(ended, "the connection to the stalled server never ended")
        #expect(try await transport.send(Pinning.get(server.url("/"))).text == "fresh")
        #expect(server.connectionCount == 2)
    }
}
