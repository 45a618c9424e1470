import Foundation
import Strata
@testable import StrataPinning
import Testing
import TestServer
import TLSTestServer

/// HTTP/2 for pinned hosts against a real nginx (Debian `nginx-light`) started on loopback with
/// the fixture certificate. Skipped, with the reason, where nginx is not installed; `.ci/run`
/// installs it so CI never skips.
@Suite(
    "PinningTransport over HTTP/2 against nginx",
    .enabled(if: NginxServer.isInstalled, Comment(rawValue: NginxServer.missing)))
struct HTTP2NginxTests {
    @Test("ALPN: nginx selects h2 when both are offered, HTTP/1.1 when only it is offered, and when it has no HTTP/2")
    func alpnBothWays() async throws {
        let server = try await NginxServer.start(directives: #"location / { return 200 "hi"; }"#)
        let plainServer = try await NginxServer.start(http2: false, directives: #"location / { return 200 "hi"; }"#)
        let http2Events = PinningEventLog()
        let preferring = http2Events.observing(try Pinning.transport())
        #expect(try await preferring.send(Pinning.get(server.url("/"))).text == "hi")
        #expect(http2Events.http2Responses == 1)

        let http1Events = PinningEventLog()
        let http1Only = http1Events.observing(
            try Pinning.transport(
                configuration: .init(requestTimeout: .seconds(10), httpVersion: .http1Only)))
        #expect(try await http1Only.send(Pinning.get(server.url("/"))).text == "hi")
        #expect(http1Events.http1Responses == 1)
        #expect(http1Events.http2Responses == 0)

        let fallbackEvents = PinningEventLog()
        let fallback = fallbackEvents.observing(try Pinning.transport())
        #expect(try await fallback.send(Pinning.get(plainServer.url("/"))).text == "hi")
        #expect(fallbackEvents.http1Responses == 1)
    }

    @Test("100 concurrent requests travel as streams of one connection")
    func hundredStreamsOneConnection() async throws {
        let server = try await NginxServer.start(directives: #"location /n { return 200 "n"; }"#)
        let events = PinningEventLog()
        let pinned = try Pinning.transport()
        let transport = events.observing(pinned)
        let url = server.url("/n")
        let succeeded = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 { group.addTask { try await transport.send(Pinning.get(url)).statusCode } }
            return try await group.reduce(0) { $0 + ($1 == 200 ? 1 : 0) }
        }
        #expect(succeeded == 100)
        #expect(events.openedCount == 1)
        #expect(pinned.http2Counts(host: "localhost", port: server.port).connections == 1)
        #expect(events.http2Responses == 100)
    }

    @Test("a 10 MB download arrives intact over HTTP/2 flow control")
    func tenMegabyteDownload() async throws {
        let payload = Payload.bytes(10 * 1024 * 1024, seed: 1)
        let server = try await NginxServer.start(directives: "location /big.bin { }", files: ["big.bin": payload])
        let transport = try Pinning.transport()
        let response = try await transport.send(Pinning.get(server.url("/big.bin")))
        #expect(response.statusCode == 200)
        #expect(response.body.count == payload.count)
        #expect(response.body == payload)
    }

    @Test("a 10 MB upload arrives intact at the upstream nginx proxies to")
    func tenMegabyteUpload() async throws {
        let payload = Payload.bytes(10 * 1024 * 1024, seed: 2)
        let upstream = try LoopbackHTTPServer()
        upstream.route("/upload", method: "POST") { request in
            .init(text: request.body == payload ? "intact \(request.body.count)" : "damaged \(request.body.count)")
        }
        let server = try await NginxServer.start(
            directives: """
                location /upload {
                    client_max_body_size 20m;
                    proxy_http_version 1.1;
                    proxy_pass http://127.0.0.1:\(upstream.port);
                }
                """)
        let transport = try Pinning.transport()
        let response = try await transport.send(Pinning.post(server.url("/upload"), body: payload))
        #expect(response.statusCode == 200)
        #expect(response.text == "intact \(payload.count)")
    }

    @Test("GOAWAY mid-run (keepalive_requests reached): unprocessed requests move to a new connection and all succeed")
    func goAwayMidRun() async throws {
        let server = try await NginxServer.start(
            directives: """
                keepalive_requests 40;
                location /g { return 200 "g"; }
                """)
        let events = PinningEventLog()
        let transport = events.observing(try Pinning.transport())
        let url = server.url("/g")
        let succeeded = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 { group.addTask { try await transport.send(Pinning.get(url)).statusCode } }
            return try await group.reduce(0) { $0 + ($1 == 200 ? 1 : 0) }
        }
        #expect(succeeded == 100)
        #expect(events.openedCount >= 3)
        #expect(events.sawGoAway)
    }

    @Test("a stream nginx resets (return 444) fails alone with connectionLost; the others on the connection succeed")
    func serverResetsStream() async throws {
        let server = try await NginxServer.start(
            directives: """
                location /reset { return 444; }
                location /ok { return 200 "ok"; }
                """)
        let events = PinningEventLog()
        let transport = events.observing(try Pinning.transport())
        async let ok1 = transport.send(Pinning.get(server.url("/ok")))
        async let ok2 = transport.send(Pinning.get(server.url("/ok")))
        let error = await Pinning.error { try await transport.send(Pinning.get(server.url("/reset"))) }
        #expect(try await ok1.text == "ok")
        #expect(try await ok2.text == "ok")
        let transportError = try #require(error as? TransportError)
        #expect(transportError.kind == .connectionLost)
        guard case .streamReset? = transportError.underlying as? HTTP2Error else {
            Issue.record("expected a stream reset, got \(String(describing: transportError.underlying))")
            return
        }
        #expect(events.openedCount == 1)
    }

    @Test("a pin mismatch is refused before the first frame: nginx logs no request")
    func pinMismatch() async throws {
        let server = try await NginxServer.start(directives: #"location / { return 200 "secret"; }"#)
        let transport = try Pinning.transport(pins: [Fixtures.Pin.leafRSA])
        let error = await Pinning.error { try await transport.send(Pinning.get(server.url("/"))) }
        #expect((error as? TransportError)?.kind == .tls)
        #expect((error as? TransportError)?.serverTrustError != nil)
        #expect(server.accessLog.isEmpty)
    }
}
