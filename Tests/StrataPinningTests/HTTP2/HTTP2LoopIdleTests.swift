import Foundation
import Strata
@testable import StrataPinning
import Testing
import TestServer
import TestSupport
import TLSTestServer

/// The connection's loop sleeps when there is nothing to do. A stream claimed for a request still
/// on its way keeps an idle connection from retiring: the loop must then be idle again from now,
/// not keep the old start, which made every wait zero and the loop spin on a core until the
/// request came (found when the whole suite starved on two cores).
@Suite("HTTP2ConnectionLoop does not spin while a claimed stream's request is on its way")
struct HTTP2LoopIdleTests {
    @Test("a stream claimed and not yet sent, for twenty idle timeouts, costs the loop a few turns per timeout, not a spin")
    func claimedStreamDoesNotSpin() async throws {
        let server = try ScriptedHTTP2Server { connection in
            connection.handshake()
            while let stream = connection.awaitRequests(1).first { connection.respond(stream: stream, body: "first") }
        }
        // Short, so twenty of them pass quickly; scaled, so a sanitizer's slowdown leaves time to
        // claim a stream before the connection retires.
        let idle = TestTimeScale.scaled(.milliseconds(25))
        let transport = try Pinning.transport(
            configuration: .init(
                requestTimeout: .seconds(10), idleConnectionTimeout: idle,
                httpVersion: .http2Only))
        guard case let .success(engine) = transport.engine else {
            Issue.record("the transport has no engine")
            return
        }
        // A connection, then a stream claimed on it before it retires (it may, on a loaded
        // machine, between the two: then again with a new one).
        var claimed: HTTP2Connection?
        for _ in 0..<10 where claimed == nil {
            #expect(try await transport.send(Pinning.get(server.url("/first"))).text == "first")
            claimed = try await engine.client.claimHTTP2Stream(host: "localhost", port: server.port)
        }
        guard let connection = claimed else {
            Issue.record("every HTTP/2 connection retired before a stream could be claimed on it")
            return
        }
        defer { connection.release() }
        let before = connection.turns
        try await Task.sleep(for: idle * 20)
        let turns = connection.turns - before
        // About one turn per idle timeout (and a few for wake-ups); a spinning loop makes hundreds
        // of thousands in the same time. The bound is on turns, not time: a slow machine makes fewer.
        #expect(turns < 200, "the loop made \(turns) turns while a claimed stream kept it from retiring")
        #expect(transport.http2Counts(host: "localhost", port: server.port).streams == 1)
    }
}
