#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
@testable import StrataPinning
import StrataTesting
import Testing
import TestServer
import TLSTestServer

@Suite("PinningTransport uses one canonical host for matching, pooling, SNI, verification and resolution")
struct PinningHostTests {
    @Test("a %00 in the host is refused before any I/O: it cannot pass under another host's pins")
    func nulHostRefused() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/", response: .init(status: 200, text: "ok"))
        let inner = CannedRoutesTransport(routes: [])
        // The attacker's pattern would accept its own CA; the NUL must not let the request
        // reach `localhost` under it, nor reach inner.
        let transport = try Pinning.transport(extra: ["**.evil.test": Pinning.pins(Fixtures.Pin.attackerCA)], inner: inner)
        let url = try #require(URL(string: "https://localhost%00.evil.test:\(server.port)/"))
        #expect(url.host?.utf8.contains(0) == true)
        let error = await Pinning.error { try await transport.send(Pinning.get(url)) }
        let failure = try #require(error as? TransportError)
        #expect(failure.kind == .invalidRequest)
        #expect(failure.message.contains("0x0"))
        #expect(server.http.connectionCount == 0)
        #expect(server.handshakes.isEmpty)
        #expect(await inner.recordedRequests.isEmpty)
    }

    @Test("a redirect to a host with a %00 is refused too")
    func nulRedirectRefused() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/hop", response: .init(status: 302, headers: [("Location", "https://localhost%00.evil.test:\(server.port)/x")]))
        let inner = CannedRoutesTransport(routes: [])
        let transport = try Pinning.transport(extra: ["**.evil.test": Pinning.pins(Fixtures.Pin.attackerCA)], inner: inner)
        let error = await Pinning.error { try await transport.send(Pinning.get(server.url("/hop"))) }
        #expect((error as? TransportError)?.kind == .invalidRequest)
        #expect(server.http.requests.map(\.path) == ["/hop"])
        #expect(await inner.recordedRequests.isEmpty)
    }

    @Test("a trailing dot is dropped: SNI carries the canonical name and both spellings share one connection")
    func trailingDotEndToEnd() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/", response: .init(status: 200, text: "ok"))
        let transport = try Pinning.transport()
        let dotted = try #require(URL(string: "https://LocalHost.:\(server.port)/"))
        #expect(try await transport.send(Pinning.get(dotted)).text == "ok")
        #expect(try await transport.send(Pinning.get(server.url("/"))).text == "ok")
        #expect(server.handshakes == [.init(serverName: "localhost", resumed: false)])
        #expect(server.http.connectionCount == 1)
        #expect(transport.poolCounts(host: "localhost", port: server.port).open == 1)
    }

    @Test(
        "other spellings of 127.0.0.1 are pinned under its pattern, sent without SNI, never to inner",
        arguments: ["127.1", "0x7f.0.0.1", "127.0.0.1"])
    func numericIPForms(host: String) async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/", response: .init(status: 200, text: "ok"))
        let inner = CannedRoutesTransport(routes: [])
        let transport = try Pinning.transport(extra: ["127.0.0.1": Pinning.pins(Fixtures.Pin.leafEC)], inner: inner)
        let url = try #require(URL(string: "https://\(host):\(server.port)/"))
        #expect(try await transport.send(Pinning.get(url)).text == "ok")
        #expect(server.handshakes == [.init(serverName: nil, resumed: false)])
        #expect(await inner.recordedRequests.isEmpty)
        #expect(transport.poolCounts(host: "127.0.0.1", port: server.port).open == 1)
    }

    @Test("a server that selects an ALPN protocol that was not offered is refused and gets no request")
    func otherALPNRefused() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly, alpn: "spdy/3.1")
        server.http.route("/", response: .init(status: 200, text: "ok"))
        let transport = try Pinning.transport()
        let error = await Pinning.error { try await transport.send(Pinning.get(server.url("/"))) }
        #expect((error as? TransportError)?.kind == .tls)
        #expect(server.http.requestCount == 0)
    }

    @Test("a second connection makes a full handshake: sessions are never resumed, even when tickets were sent")
    func noResumption() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly, ticketAfterEachWrite: true)
        server.http.route("/", response: .init(status: 200, text: "ok"))
        let clock = TestClock()
        let transport = try Pinning.transport(
            configuration: .init(
                requestTimeout: .seconds(10),
                idleConnectionTimeout: .seconds(30)),
            clock: clock)
        #expect(try await transport.send(Pinning.get(server.url("/"))).text == "ok")
        clock.advance(by: .seconds(31))
        #expect(try await transport.send(Pinning.get(server.url("/"))).text == "ok")
        #expect(
            server.handshakes == [
                .init(serverName: "localhost", resumed: false),
                .init(serverName: "localhost", resumed: false),
            ])
    }

    @Test("durations of .seconds(Int64.max) mean 'never' and do not crash")
    func hugeDurations() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/", response: .init(status: 200, text: "ok"))
        let never = Duration.seconds(Int64.max)
        let transport = try Pinning.transport(
            configuration: .init(
                connectTimeout: never, handshakeTimeout: never, idleReadTimeout: never, requestTimeout: never,
                idleConnectionTimeout: never))
        #expect(try await transport.send(Pinning.get(server.url("/"))).text == "ok")
        #expect(try await transport.send(Pinning.get(server.url("/"))).text == "ok")
    }
}
