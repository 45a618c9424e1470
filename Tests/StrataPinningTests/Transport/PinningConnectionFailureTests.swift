#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import COpenSSL
import Foundation
import Strata
@testable import StrataPinning
import StrataTesting
import Testing
import TestServer
import TLSTestServer
import TestSupport

@Suite("PinningTransport's TLS connections fail clearly when the server cannot be trusted to speak TLS properly")
struct PinningConnectionFailureTests {
    @Test("a TLS 1.2-only server is accepted")
    func tls12Accepted() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly, maxProtocolVersion: TLS1_2_VERSION)
        server.http.route("/a", response: .init(text: "a"))
        let events = PinningEventLog()
        let transport = events.observing(try Pinning.transport())
        #expect(try await transport.send(Pinning.get(server.url("/a"))).text == "a")
        let versions = events.all.compactMap { if case let .connectionOpened(_, _, version, _) = $0 { version } else { nil } }
        #expect(versions == ["TLSv1.2"])
    }

    @Test("a server offering only TLS 1.1 is refused with a tls error")
    func tls11Refused() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly, maxProtocolVersion: TLS1_1_VERSION)
        let transport = try Pinning.transport()
        let error = await Pinning.error { try await transport.send(Pinning.get(server.url("/a"))) }
        let failure = try #require(error as? TransportError)
        #expect(failure.kind == .tls)
        #expect(failure.message.contains("handshake"))
        #expect(server.http.requestCount == 0)
    }

    @Test("a server that answers the ClientHello with plain HTTP fails the handshake with a tls error")
    func notTLS() async throws {
        let server = try LoopbackHTTPServer(greeting: Data("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8))
        let transport = try Pinning.transport()
        let url = URL(string: "https://localhost:\(server.port)/a")!
        let error = await Pinning.error { try await transport.send(Pinning.get(url)) }
        let failure = try #require(error as? TransportError)
        #expect(failure.kind == .tls, "\(failure)")
    }

    @Test("a server that never completes the handshake hits the handshake timeout")
    func handshakeTimeout() async throws {
        // A plain HTTP server reads the ClientHello as the start of a request and waits for more.
        let server = try LoopbackHTTPServer()
        let transport = try Pinning.transport(configuration: .init(handshakeTimeout: .milliseconds(200)))
        let url = URL(string: "https://localhost:\(server.port)/a")!
        let start = ContinuousClock.now
        let error = await Pinning.error { try await transport.send(Pinning.get(url)) }
        #expect((error as? TransportError)?.kind == .timedOut)
        // Without the handshake timeout the 30 s idle read timeout would end it. The bound tells
        // the two apart and no more: a 3 s bound failed once in a loaded CI run (4.1 s), the
        // cooperative pool starved by the parallel suite, not a late timer on the connection thread.
        #expect(ContinuousClock.now - start < TestTimeScale.scaled(.seconds(15)))
        server.stop()
    }

    @Test("a closed port is cannotConnect")
    func closedPort() async throws {
        // Port 1 (tcpmux) is not served on test machines; a freed ephemeral port could be reused.
        let url = URL(string: "https://localhost:1/a")!
        let transport = try Pinning.transport()
        let error = await Pinning.error { try await transport.send(Pinning.get(url)) }
        #expect((error as? TransportError)?.kind == .cannotConnect)
    }

    @Test("writing a large request to a server that gave up on it is connectionLost, never SIGPIPE")
    func peerGoneWhileWriting() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/upload", method: "POST", response: .init(text: "ok"))
        let transport = try Pinning.transport()
        // The server stops reading a head over 64 KiB and closes while 4 MB are still coming.
        var request = Pinning.post(server.url("/upload"), body: Data(count: 4 << 20))
        request.headers["X-Huge"] = String(repeating: "x", count: 100_000)
        let error = await Pinning.error { try await transport.send(request) }
        #expect((error as? TransportError)?.kind == .connectionLost, "\(String(describing: error))")
        #expect(try await transport.send(Pinning.get(server.url("/missing"))).statusCode == 404)
    }
}
