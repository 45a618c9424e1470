#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
@testable import StrataPinning
import Testing
import TestServer
import TLSTestServer

/// Pinned requests through a real proxy: Debian's tinyproxy, started per test on a free loopback
/// port with a generated configuration. Skipped, with the reason, where tinyproxy is not
/// installed; `.ci/run` installs it so CI never skips.
@Suite(
    "PinningTransport through a real HTTP proxy (tinyproxy)",
    .enabled(if: TinyproxyServer.isInstalled, Comment(rawValue: TinyproxyServer.missing)))
struct TinyproxyTests {
    static func transport(
        proxy url: String, noProxy: String = "",
        httpVersion: HTTPVersionPolicy = .preferHTTP2
    ) throws -> PinningTransport {
        try Pinning.transport(
            configuration: .init(
                requestTimeout: .seconds(30), httpVersion: httpVersion,
                proxy: ProxyConfiguration(url: url, noProxy: noProxy)))
    }

    @Test("without credentials: one CONNECT per connection, TLS and pins end to end with the origin's name")
    func tunnel() async throws {
        let proxy = try await TinyproxyServer.start()
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/hello", response: .init(text: "through the tunnel"))
        let events = PinningEventLog()
        let transport = events.observing(try Self.transport(proxy: proxy.url()))
        for _ in 0..<2 {
            #expect(try await transport.send(Pinning.get(server.url("/hello"))).text == "through the tunnel")
        }
        // The kept connection carried the second request: the proxy saw one CONNECT.
        #expect(proxy.connectRequests == ["CONNECT localhost:\(server.port) HTTP/1.1"])
        #expect(events.tunnels.map(\.target) == ["localhost:\(server.port)"])
        #expect(events.tunnels.map(\.proxy) == [proxy.url()])
        #expect(events.reusedCount == 1)
        // SNI and the certificate check used the origin's name, and its pin matched.
        #expect(server.handshakes.map(\.serverName) == ["localhost"])
        #expect(events.trust.map(\.matchedPin) == [Fixtures.Pin.leafEC])
    }

    @Test("with BasicAuth: the URL's credentials are sent; none or wrong ones fail with a typed 407 that never shows them")
    func basicAuth() async throws {
        let proxy = try await TinyproxyServer.start(credentials: ("alice", "s3cret"))
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/hello", response: .init(text: "authorized"))
        let events = PinningEventLog()
        let good = events.observing(try Self.transport(proxy: proxy.url(user: "alice", password: "s3cret")))
        #expect(try await good.send(Pinning.get(server.url("/hello"))).text == "authorized")
        // The tunnel's event names the proxy, never its credentials.
        #expect(events.tunnels.map(\.proxy) == ["http://<redacted>@127.0.0.1:\(proxy.port)"])
        for text in events.all.flatMap({ [$0.description, $0.message(redactedBy: Redaction())] }) {
            #expect(!text.contains("s3cret") && !text.contains("alice"), "\(text)")
        }

        // tinyproxy answers 407 with a Basic challenge without credentials, and 401 for wrong ones.
        for (url, sentCredentials, status, offered) in [
            (proxy.url(), false, 407, ["Basic"]),
            (proxy.url(user: "alice", password: "wrong-pass"), true, 401, []),
        ] {
            let transport = try Self.transport(proxy: url)
            let error = await Pinning.error { try await transport.send(Pinning.get(server.url("/hello"))) }
            let failure = try #require(error as? TransportError)
            guard case let .authenticationRequired(shown, target, code, sent, challenges)? = failure.underlying as? ProxyError else {
                Issue.record("expected an authentication failure, got \(failure)")
                continue
            }
            #expect(code == status)
            #expect(sent == sentCredentials)
            #expect(target == "localhost:\(server.port)")
            #expect(challenges == offered)
            #expect(shown == (sentCredentials ? "http://<redacted>@127.0.0.1:\(proxy.port)" : proxy.url()))
            #expect(failure.kind == .other)
            #expect(!failure.isTransient)
            #expect(!failure.description.contains("wrong-pass"))
            #expect(!failure.description.contains("alice"))
            #expect(failure.url == server.url("/hello"))
        }
        #expect(server.http.requestCount == 1)
    }

    @Test("NO_PROXY: a listed host is reached directly and the proxy sees nothing")
    func noProxyBypass() async throws {
        let proxy = try await TinyproxyServer.start()
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/hello", response: .init(text: "direct"))
        let events = PinningEventLog()
        let transport = events.observing(try Self.transport(proxy: proxy.url(), noProxy: "example.com, .localhost"))
        #expect(try await transport.send(Pinning.get(server.url("/hello"))).text == "direct")
        #expect(proxy.connectRequests.isEmpty)
        #expect(events.tunnels.isEmpty)
        // Another port of the same host is not covered by a host:port entry.
        let portOnly = try Self.transport(proxy: proxy.url(), noProxy: "localhost:\(server.port + 1)")
        #expect(try await portOnly.send(Pinning.get(server.url("/hello"))).text == "direct")
        #expect(proxy.connectRequests == ["CONNECT localhost:\(server.port) HTTP/1.1"])
    }

    @Test("a policy refusal (403) and an unreachable origin (500) are typed errors naming the proxy")
    func refusals() async throws {
        let policy = try await TinyproxyServer.start(connectPorts: [443])
        let server = try TLSLoopbackServer(identity: .leafOnly)
        let forbidden = try Self.transport(proxy: policy.url())
        let error = await Pinning.error { try await forbidden.send(Pinning.get(server.url("/"))) }
        let failure = try #require(error as? TransportError)
        #expect((failure.underlying as? ProxyError)?.statusCode == 403)
        #expect(failure.kind == .other)
        #expect(failure.message.contains(policy.url()))
        #expect(failure.message.contains("NO_PROXY"))
        #expect(server.http.connectionCount == 0)

        let open = try await TinyproxyServer.start()
        let closedPort = try RefusingPort()
        let unreachable = try Self.transport(proxy: open.url())
        let unreachableError = await Pinning.error {
            try await unreachable.send(Pinning.get(URL(string: "https://localhost:\(closedPort.port)/")!))
        }
        let unreachableFailure = try #require(unreachableError as? TransportError)
        #expect((unreachableFailure.underlying as? ProxyError)?.statusCode == 500)
        #expect(unreachableFailure.kind == .cannotConnect)
        #expect(unreachableFailure.message.contains("could not reach localhost:\(closedPort.port)"))
    }

    @Test(
        "HTTP/2 runs through the tunnel too: nginx selects h2 and the request is a stream",
        .enabled(if: NginxServer.isInstalled, Comment(rawValue: NginxServer.missing)))
    func http2ThroughTunnel() async throws {
        let proxy = try await TinyproxyServer.start()
        let server = try await NginxServer.start(directives: #"location / { return 200 "h2 via proxy"; }"#)
        let events = PinningEventLog()
        let transport = events.observing(try Self.transport(proxy: proxy.url()))
        #expect(try await transport.send(Pinning.get(server.url("/"))).text == "h2 via proxy")
        #expect(events.http2Responses == 1)
        #expect(proxy.connectRequests == ["CONNECT localhost:\(server.port) HTTP/1.1"])
    }
}
