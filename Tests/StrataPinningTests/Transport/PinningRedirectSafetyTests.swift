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

@Suite("PinningTransport's redirects: secret headers stay with their origin, https never falls back to http")
struct PinningRedirectSafetyTests {
    @Test("a cross-origin 307 drops every header Redaction calls secret, the user's extra names included")
    func secretHeadersDropped() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route(
            "/go", response: .init(status: 307, headers: [("Location", server.url("/landing", host: "127.0.0.1").absoluteString)]))
        server.http.route("/landing", response: .init(text: "landed"))
        let pins = try Pinning.pins(Fixtures.Pin.leafEC)
        let safety = RedirectSafety(secrets: Redaction(extraHeaders: ["X-Tenant-Key"]))
        let transport = PinningTransport(
            inner: CannedRoutesTransport(routes: []), pinnedDomains: ["localhost": pins, "127.0.0.1": pins],
            trustRoots: try Pinning.privateCA(),
            configuration: .init(requestTimeout: .seconds(10), redirectSafety: safety))
        let secrets = ["Authorization": "Bearer a", "Cookie": "c=1", "X-API-Key": "k", "X-Auth-Token": "t", "X-Tenant-Key": "tk"]
        let response = try await transport.send(Pinning.get(server.url("/go"), headers: secrets.merging(["X-Trace": "1"]) { a, _ in a }))
        #expect(response.text == "landed")
        let landed = try #require(server.http.requests.last)
        #expect(landed.path == "/landing")
        for name in secrets.keys { #expect(landed.header(name) == nil, "\(name) crossed origins") }
        #expect(landed.header("X-Trace") == "1")
        let first = try #require(server.http.requests.first)
        for name in secrets.keys { #expect(first.header(name) != nil) }
    }

    @Test("a redirect from https to plain http is refused by default, saying why and naming the opt-in")
    func downgradeRefused() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        let plain = try LoopbackHTTPServer()
        server.http.route("/down", response: .init(status: 302, headers: [("Location", plain.url("/x").absoluteString)]))
        let inner = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(pathRegex: ".*"), response: CannedResponse(string: "plain"))
        ])
        let transport = try Pinning.transport(inner: inner)
        let error = await Pinning.error { try await transport.send(Pinning.get(server.url("/down"))) }
        let failure = try #require(error as? TransportError)
        #expect(failure.kind == .invalidRequest)
        #expect(failure.message.contains("allowsHTTPSToHTTP"))
        #expect(failure.message.contains("unencrypted"))
        #expect(await inner.recordedRequests.isEmpty)

        let allowing = try Pinning.transport(
            inner: inner,
            configuration: .init(
                requestTimeout: .seconds(10), redirectSafety: RedirectSafety(allowsHTTPSToHTTP: true)))
        #expect(try await allowing.send(Pinning.get(server.url("/down"))).text == "plain")
    }
}
