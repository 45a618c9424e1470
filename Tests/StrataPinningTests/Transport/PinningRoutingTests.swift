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

@Suite("PinningTransport routes by host: pinned hosts over its own TLS, the rest to inner; redirects are pinned again")
struct PinningRoutingTests {
    @Test("a request for an unpinned host goes to inner untouched")
    func unpinnedGoesToInner() async throws {
        let inner = CannedRoutesTransport(routes: [
            CannedRoute(
                pattern: RequestPattern(path: "/users"),
                response: CannedResponse(string: "from inner"))
        ])
        let events = PinningEventLog()
        let transport = events.observing(try Pinning.transport(inner: inner))
        let request = Pinning.get(URL(string: "https://unpinned.example.com/users?q=1")!, headers: ["Authorization": "Bearer t"])
        let response = try await transport.send(request)
        #expect(response.text == "from inner")
        let recorded = await inner.recordedRequests
        #expect(recorded.map(\.url) == [request.url])
        #expect(recorded.map(\.headers) == [request.headers])
        #expect(events.all.count == 1)
    }

    @Test("plain http to an unpinned host goes to inner as well")
    func unpinnedHTTPGoesToInner() async throws {
        let inner = CannedRoutesTransport(routes: [CannedRoute(pattern: RequestPattern(path: "/"), response: CannedResponse(string: "ok"))])
        let transport = try Pinning.transport(inner: inner)
        #expect(try await transport.send(Pinning.get(URL(string: "http://other.example.com/")!)).text == "ok")
        #expect(await inner.recordedRequests.count == 1)
    }

    @Test("plain http to a pinned host is refused before any connection: pinned traffic never travels in cleartext")
    func cleartextToPinnedHostRefused() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        let inner = CannedRoutesTransport(routes: [])
        let transport = try Pinning.transport(inner: inner)
        let url = URL(string: "http://localhost:\(server.port)/a")!
        let error = await Pinning.error { try await transport.send(Pinning.get(url)) }
        let failure = try #require(error as? TransportError)
        #expect(failure.kind == .invalidRequest)
        #expect(failure.message.contains("only reached over https"))
        #expect(server.http.connectionCount == 0)
        #expect(await inner.recordedRequests.isEmpty)
    }

    @Test("a malformed pinned-domain pattern fails closed: every request throws the configuration error")
    func failsClosed() async throws {
        let inner = CannedRoutesTransport(routes: [CannedRoute(pattern: RequestPattern(path: "/"), response: CannedResponse(string: "ok"))])
        let pins = try Pinning.pins(Fixtures.Pin.leafEC)
        let transport = PinningTransport(inner: inner, pinnedDomains: ["api.*.example.com": pins])
        let expected = try #require(transport.configurationError)
        guard case .malformedHostPattern("api.*.example.com", _) = expected else {
            Issue.record("unexpected \(expected)")
            return
        }
        let error = await Pinning.error { try await transport.send(Pinning.get(URL(string: "https://elsewhere.example.org/")!)) }
        #expect(error as? PinningConfigurationError == expected)
        #expect(await inner.recordedRequests.isEmpty)
        #expect(throws: PinningConfigurationError.self) {
            _ = try PinningTransport.validated(inner: inner, pinnedDomains: ["api.*.example.com": pins])
        }
        #expect(throws: PinningConfigurationError.noTrustedCertificates) {
            _ = try PinningTransport.validated(inner: inner, pinnedDomains: ["localhost": pins], trustRoots: .certificates([]))
        }
        #expect(try PinningTransport.validated(inner: inner, pinnedDomains: ["localhost": pins]).configurationError == nil)
    }

    @Test("a request HTTP/1.1 cannot carry as given is invalidRequest, with the encoder's reason")
    func invalidRequest() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        let transport = try Pinning.transport()
        let request = Pinning.get(server.url("/a"), headers: ["Transfer-Encoding": "gzip"])
        let error = await Pinning.error { try await transport.send(request) }
        let failure = try #require(error as? TransportError)
        #expect(failure.kind == .invalidRequest)
        #expect(failure.underlying is HTTPRequestError)
        #expect(server.http.connectionCount == 0)
    }

    @Test("a same-origin redirect keeps credentials; the response after it is returned")
    func sameOriginRedirect() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/old", response: .init(status: 302, headers: [("Location", "/new")]))
        server.http.route("/new") { request in .init(text: request.header("Authorization") ?? "none") }
        let events = PinningEventLog()
        let transport = events.observing(try Pinning.transport())
        let response = try await transport.send(Pinning.get(server.url("/old"), headers: ["Authorization": "Bearer t"]))
        #expect(response.text == "Bearer t")
        #expect(response.url == server.url("/new"))
        #expect(server.http.connectionCount == 1)
        let redirects = events.all.compactMap { if case let .redirected(_, to, status) = $0 { "\(status) \(to.path)" } else { nil } }
        #expect(redirects == ["302 /new"])
    }

    @Test("307 keeps the method and body; 303 turns a POST into a bodiless GET")
    func redirectMethods() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/temporary", response: .init(status: 307, headers: [("Location", "/echo")]))
        server.http.route("/see-other", response: .init(status: 303, headers: [("Location", "/echo")]))
        server.http.route("/echo") { request in .init(text: "\(request.method) \(String(decoding: request.body, as: UTF8.self))") }
        let transport = try Pinning.transport()
        let body = Data("payload".utf8)
        #expect(try await transport.send(Pinning.post(server.url("/temporary"), body: body)).text == "POST payload")
        #expect(try await transport.send(Pinning.post(server.url("/see-other"), body: body)).text == "GET ")
    }

    @Test("a redirect to an unpinned host goes to inner without the credentials")
    func redirectToUnpinnedHost() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/away", response: .init(status: 301, headers: [("Location", "https://cdn.example.net/file")]))
        let inner = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(path: "/file"), response: CannedResponse(string: "file"))
        ])
        let transport = try Pinning.transport(inner: inner)
        let response = try await transport.send(Pinning.get(server.url("/away"), headers: ["Authorization": "Bearer t", "X-Trace": "1"]))
        #expect(response.text == "file")
        let forwarded = try #require(await inner.recordedRequests.first)
        #expect(forwarded.url.absoluteString == "https://cdn.example.net/file")
        #expect(forwarded.headers["Authorization"] == nil)
        #expect(forwarded.headers["X-Trace"] == "1")
    }

    @Test("a redirect to another pinned host is checked against that host's pins")
    func redirectToOtherPinnedHost() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route(
            "/hop", response: .init(status: 302, headers: [("Location", server.url("/target", host: "127.0.0.1").absoluteString)]))
        server.http.route("/target", response: .init(text: "target"))
        let transport = try Pinning.transport(extra: ["127.0.0.1": try Pinning.pins(Fixtures.Pin.attackerCA)])
        let error = await Pinning.error { try await transport.send(Pinning.get(server.url("/hop"))) }
        let failure = try #require(error as? TransportError)
        #expect(failure.kind == .tls)
        #expect(failure.serverTrustError?.host == "127.0.0.1")
        #expect(server.http.requests.map(\.path) == ["/hop"])
    }

    @Test("a redirect from a pinned host to plain http on a pinned host is refused")
    func redirectToCleartext() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/down", response: .init(status: 302, headers: [("Location", "http://localhost:\(server.port)/x")]))
        let transport = try Pinning.transport()
        let error = await Pinning.error { try await transport.send(Pinning.get(server.url("/down"))) }
        #expect((error as? TransportError)?.kind == .invalidRequest)
    }

    @Test("a redirect loop stops at the configured limit")
    func redirectLoop() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/loop", response: .init(status: 302, headers: [("Location", "/loop")]))
        let transport = try Pinning.transport(configuration: .init(maxRedirects: 3))
        let error = await Pinning.error { try await transport.send(Pinning.get(server.url("/loop"))) }
        #expect((error as? TransportError)?.kind == .tooManyRedirects)
        #expect(server.http.requestCount == 4)
    }

    /// The two ways to build `inner`: the default, which follows no redirects, and a
    /// `URLSessionTransport()` with its default limits, which follows ten on its own.
    static let inners: [@Sendable () -> any Transport] = [
        { PinningTransport.defaultInner() },
        { URLSessionTransport() },
    ]

    @Test(
        "an unpinned host that redirects to a pinned host cannot lead the request around the pins, even through an inner that follows redirects itself",
        arguments: inners)
    func redirectFromUnpinnedToPinned(makeInner: @Sendable () -> any Transport) async throws {
        let pinned = try TLSLoopbackServer(identity: .leafOnly)
        pinned.http.route("/target", response: .init(text: "pinned body"))
        let plain = try LoopbackHTTPServer()
        plain.route("/hop", response: .init(status: 302, headers: [("Location", pinned.url("/target").absoluteString)]))

        // Were the hop to the pinned host made by the inner URLSession, it would fail: URLSession
        // does not trust the test CA. PinningTransport makes it, with the test CA and the pins.
        let trusted = try Pinning.transport(inner: makeInner())
        #expect(try await trusted.send(Pinning.get(plain.url("/hop"))).text == "pinned body")

        let wrongPin = try Pinning.transport(pins: [Fixtures.Pin.attackerCA], inner: makeInner())
        let error = await Pinning.error { try await wrongPin.send(Pinning.get(plain.url("/hop"))) }
        #expect((error as? TransportError)?.kind == .tls)
        #expect(pinned.http.requests.map(\.path) == ["/target"], "only the trusted transport reached the pinned host")
    }
}
