#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import Testing
import TestServer

/// Answers every `https://secure.test/...` request with a 302 to the URL in its `to` query item:
/// an https origin URLSession can reach in a test, without a CA it trusts.
final class HTTPSRedirectingProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { request.url?.host == "secure.test" }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let url = request.url,
            let target = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "to" })?.value,
            let response = HTTPURLResponse(url: url, statusCode: 302, httpVersion: "HTTP/1.1", headerFields: ["Location": target])
        else { return }
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}
}

@Suite("URLSessionTransport's redirects: secret headers stay with their origin, https never falls back to http")
struct RedirectSafetyTests {
    @Test("a cross-origin 307 (127.0.0.1 to localhost) drops every header Redaction calls secret")
    func secretHeadersDropped() async throws {
        let server = try LoopbackHTTPServer()
        server.route("/go", response: .init(status: 307, headers: [("Location", "http://localhost:\(server.port)/landing")]))
        server.route("/landing", response: .init(text: "landed"))
        let transport = URLSessionTransport(
            requestTimeout: .seconds(30),
            redirectSafety: RedirectSafety(secrets: Redaction(extraHeaders: ["X-Tenant-Key"])))
        var request = URLRequest(url: server.url("/go"))
        let secrets = ["Authorization", "Cookie", "Proxy-Authorization", "X-API-Key", "X-Auth-Token", "X-Tenant-Key"]
        for name in secrets + ["X-Trace"] { request.setValue("value-of-\(name)", forHTTPHeaderField: name) }
        let response = try await transport.send(request)
        #expect(String(decoding: response.body, as: UTF8.self) == "landed")
        let landed = try #require(server.requests.last)
        #expect(landed.path == "/landing")
        for name in secrets { #expect(landed.header(name) == nil, "\(name) crossed origins") }
        #expect(landed.header("X-Trace") == "value-of-X-Trace")
    }

    @Test("the default transport drops X-API-Key and X-Auth-Token across origins too")
    func defaultSecretHeaders() async throws {
        let server = try LoopbackHTTPServer()
        server.route("/go", response: .init(status: 307, headers: [("Location", "http://localhost:\(server.port)/landing")]))
        server.route("/landing", response: .init(text: "landed"))
        var request = URLRequest(url: server.url("/go"))
        request.setValue("k", forHTTPHeaderField: "X-API-Key")
        request.setValue("t", forHTTPHeaderField: "X-Auth-Token")
        _ = try await URLSessionTransport(requestTimeout: .seconds(30)).send(request)
        let landed = try #require(server.requests.last)
        #expect(landed.header("X-API-Key") == nil && landed.header("X-Auth-Token") == nil)
    }

    private func httpsTransport(_ safety: RedirectSafety = RedirectSafety()) -> URLSessionTransport {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [HTTPSRedirectingProtocol.self]
        configuration.timeoutIntervalForResource = 30
        return URLSessionTransport(configuration: configuration, limits: .init(), redirectSafety: safety)
    }

    @Test("a redirect from https to http is refused by default, saying why and naming the opt-in")
    func downgradeRefused() async throws {
        let server = try LoopbackHTTPServer()
        server.route("/plain", response: .init(text: "plain"))
        var components = URLComponents(string: "https://secure.test/start")!
        components.queryItems = [URLQueryItem(name: "to", value: server.url("/plain").absoluteString)]
        let request = URLRequest(url: components.url!)
        let error = await #expect(throws: TransportError.self) { try await httpsTransport().send(request) }
        #expect(error?.kind == .invalidRequest)
        #expect(error?.message.contains("unencrypted") == true)
        #expect(error?.message.contains("allowsHTTPSToHTTP") == true)
        #expect(server.requestCount == 0)

        let allowed = try await httpsTransport(RedirectSafety(allowsHTTPSToHTTP: true)).send(request)
        #expect(String(decoding: allowed.body, as: UTF8.self) == "plain")
    }
}
