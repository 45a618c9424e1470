@testable import StrataPinning
import Testing

@Suite("The CONNECT exchange: the request written and the proxy's answer read within limits")
struct ProxyConnectResponseTests {
    static let proxy = "http://proxy:3128"

    static func parse(_ text: String, maxHeaderCount: Int = 100) throws(ProxyError) -> ProxyConnectResponse {
        let bytes = Array(text.utf8)
        let length = ProxyConnectResponse.headLength(in: bytes) ?? bytes.count
        return try ProxyConnectResponse(head: bytes[..<length], maxHeaderCount: maxHeaderCount, proxy: proxy)
    }

    @Test("the request names the origin as host:port, brackets an IPv6 host, and carries Basic credentials only when given")
    func request() throws {
        let plain = ProxyTunnel.request(to: try CanonicalHost("api.example.com"), port: 443, credentials: nil)
        #expect(
            String(decoding: plain, as: UTF8.self)
                == "CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n")
        let withCredentials = ProxyTunnel.request(
            to: try CanonicalHost("[::1]"), port: 8443,
            credentials: ProxyCredentials(user: "Aladdin", password: "open sesame"))
        #expect(
            String(decoding: withCredentials, as: UTF8.self)
                == "CONNECT [::1]:8443 HTTP/1.1\r\nHost: [::1]:8443\r\n"
                + "Proxy-Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==\r\n\r\n")
    }

    @Test("the head ends at the first empty line, CRLF or bare LF; nil until it arrives")
    func headLength() {
        #expect(ProxyConnectResponse.headLength(in: Array("HTTP/1.1 200 OK\r\n\r\nTLS".utf8)) == 19)
        #expect(ProxyConnectResponse.headLength(in: Array("HTTP/1.1 200 OK\n\n".utf8)) == 17)
        #expect(ProxyConnectResponse.headLength(in: Array("HTTP/1.1 200 OK\r\nVia: x\r\n".utf8)) == nil)
        #expect(ProxyConnectResponse.headLength(in: []) == nil)
    }

    @Test(
        "a head arriving in pieces, split at any byte or one byte at a time, ends where it does whole",
        arguments: [
            "HTTP/1.1 200 OK\r\nVia: 1.1 proxy\r\n\r\nTLS", "HTTP/1.1 200 OK\n\n", "HTTP/1.1 407 No\nProxy-Authenticate: Basic\n\r\n",
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n",
        ])
    func headInPieces(text: String) throws {
        let bytes = Array(text.utf8)
        let whole = try #require(ProxyConnectResponse.headLength(in: bytes))
        let parsed = try ProxyConnectResponse(head: bytes[..<whole], maxHeaderCount: 10, proxy: "p")
        for split in 0...bytes.count {
            var scanned = 0
            let first = ProxyConnectResponse.headLength(in: Array(bytes[..<split]), resumingAt: &scanned)
            let length = first ?? ProxyConnectResponse.headLength(in: bytes, resumingAt: &scanned)
            #expect(length == whole, "split at \(split)")
            #expect(first != nil || scanned == max(0, split - 3), "the next scan resumes near the end")
        }
        var received: [UInt8] = []
        var scanned = 0
        var found: Int?
        for byte in bytes where found == nil {
            received.append(byte)
            found = ProxyConnectResponse.headLength(in: received, resumingAt: &scanned)
        }
        #expect(found == whole)
        #expect(try ProxyConnectResponse(head: received[..<whole], maxHeaderCount: 10, proxy: "p") == parsed)
    }

    @Test("any 2xx opens the tunnel, whatever its reason phrase or fields")
    func success() throws {
        #expect(try Self.parse("HTTP/1.1 200 Connection established\r\n\r\n").isSuccess)
        #expect(try Self.parse("HTTP/1.0 200\r\nContent-Length: 10\r\n\r\n").isSuccess)
        #expect(try Self.parse("HTTP/1.1 204 No Content\r\n\r\n").isSuccess)
        #expect(!(try Self.parse("HTTP/1.1 302 Found\r\nLocation: /x\r\n\r\n").isSuccess))
    }

    @Test("a 407 names the schemes the proxy offers")
    func challenges() throws {
        let response = try Self.parse(
            "HTTP/1.1 407 Proxy Authentication Required\r\n"
                + "Proxy-Authenticate: Negotiate\r\nproxy-authenticate: Basic realm=\"corp, inc\", Digest realm=\"x\", nonce=\"y\"\r\n\r\n")
        #expect(response.statusCode == 407)
        #expect(response.reason == "Proxy Authentication Required")
        #expect(response.challenges == ["Negotiate", "Basic", "Digest"])
    }

    @Test(
        "a status line that is not HTTP/1.x, a line without a colon, or too many fields are refused",
        arguments: [
            "SSH-2.0-OpenSSH_9.2\r\n\r\n", "HTTP/2 200\r\n\r\n", "HTTP/1.1 2000 OK\r\n\r\n",
            "HTTP/1.1 OK\r\n\r\n", "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "\r\n\r\n",
        ])
    func malformed(text: String) {
        #expect(throws: ProxyError.self) { try Self.parse(text) }
    }

    @Test("more header fields than the limit are refused")
    func tooManyFields() throws {
        let head = "HTTP/1.1 200 OK\r\n" + String(repeating: "Via: x\r\n", count: 3) + "\r\n"
        #expect(throws: ProxyError.responseHeadTooLarge(proxy: Self.proxy, limit: 2)) { try Self.parse(head, maxHeaderCount: 2) }
        #expect(try Self.parse(head, maxHeaderCount: 3).isSuccess)
    }

    @Test("a reason phrase loses its control characters and is cut to 100 characters")
    func reasonPhrase() throws {
        let response = try Self.parse("HTTP/1.1 403 Forbidden\u{1b}[31m" + String(repeating: "x", count: 300) + "\r\n\r\n")
        #expect(!response.reason.contains("\u{1b}"))
        #expect(response.reason.count == ProxyConnectResponse.maximumReasonLength)
    }

    @Test("refusals map to errors a caller can act on: credentials, policy, an unreachable host, anything else")
    func refusals() throws {
        let anonymous = try ProxyConfiguration(url: "proxy:3128")
        let withCredentials = try ProxyConfiguration(url: "http://alice:s3cret@proxy:3128")
        let required = ProxyTunnel.refusal(
            try Self.parse("HTTP/1.1 407 Auth\r\nProxy-Authenticate: Negotiate\r\n\r\n"),
            proxy: anonymous, target: "api.example.com:443")
        #expect(
            required
                == .authenticationRequired(
                    proxy: "http://proxy:3128", target: "api.example.com:443",
                    statusCode: 407, sentCredentials: false, challenges: ["Negotiate"]))
        #expect(required.description.contains("http://user:password@host:port"))
        #expect(required.description.contains("only Basic is supported"))
        let rejected = ProxyTunnel.refusal(
            try Self.parse("HTTP/1.1 407 Auth\r\nProxy-Authenticate: Basic\r\n\r\n"),
            proxy: withCredentials, target: "api.example.com:443")
        #expect(rejected.description.contains("did not accept"))
        #expect(!rejected.description.contains("s3cret"))
        #expect(rejected.description.contains("http://<redacted>@proxy:3128"))
        #expect(rejected.statusCode == 407)

        let forbidden = ProxyTunnel.refusal(try Self.parse("HTTP/1.1 403 Forbidden\r\n\r\n"), proxy: anonymous, target: "a:443")
        #expect(forbidden.description.contains("NO_PROXY"))
        #expect(ProxyTunnel.failure(forbidden).kind == .other)
        #expect(!ProxyTunnel.failure(forbidden).isTransient)
        let badGateway = ProxyTunnel.refusal(try Self.parse("HTTP/1.1 502 Bad Gateway\r\n\r\n"), proxy: anonymous, target: "a:443")
        #expect(badGateway.description.contains("could not reach a:443"))
        #expect(ProxyTunnel.failure(badGateway).kind == .cannotConnect)
        let teapot = ProxyTunnel.refusal(try Self.parse("HTTP/1.1 418 Teapot\r\n\r\n"), proxy: anonymous, target: "a:443")
        #expect(teapot == .tunnelRefused(proxy: "http://proxy:3128", target: "a:443", statusCode: 418, reason: "Teapot"))
        #expect(ProxyTunnel.failure(teapot).underlying as? ProxyError == teapot)
    }
}
