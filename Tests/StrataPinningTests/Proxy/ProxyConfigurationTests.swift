import Foundation
@testable import StrataPinning
import Testing

@Suite("A proxy setting reads the proxy URL and the environment as curl does, and never shows credentials")
struct ProxyConfigurationTests {
    @Test(
        "scheme, credentials and port are optional; the port defaults to 1080 as in curl",
        arguments: [
            ("http://proxy.corp.example:3128", "proxy.corp.example", 3128, false),
            ("proxy.corp.example:8080", "proxy.corp.example", 8080, false),
            ("HTTP://Proxy.Corp.Example/", "proxy.corp.example", 1080, false),
            ("http://alice:s3cret@10.0.0.1:3128", "10.0.0.1", 3128, true),
            ("http://[::1]:3128", "::1", 3128, false),
            ("[::1]", "::1", 1080, false),
            ("http://alice@proxy:3128", "proxy", 3128, true),
        ])
    func parsing(url: String, host: String, port: Int, hasCredentials: Bool) throws {
        let proxy = try ProxyConfiguration(url: url)
        #expect(proxy.host == host)
        #expect(proxy.port == port)
        #expect((proxy.credentials != nil) == hasCredentials)
    }

    @Test("credentials are percent-decoded and sent as Basic of user:password")
    func credentials() throws {
        let proxy = try ProxyConfiguration(url: "http://al%40ice:p%3Ass%20w@proxy:3128")
        #expect(proxy.credentials == ProxyCredentials(user: "al@ice", password: "p:ss w"))
        #expect(proxy.credentials?.basicAuthorization == "Basic " + Data("al@ice:p:ss w".utf8).base64EncodedString())
        // RFC 7617's example.
        #expect(
            ProxyCredentials(user: "Aladdin", password: "open sesame").basicAuthorization
                == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
    }

    @Test("the description, the redacted URL and dump show no credentials")
    func redaction() throws {
        let proxy = try ProxyConfiguration(url: "http://alice:s3cret@proxy.corp.example:3128", noProxy: "localhost")
        #expect(proxy.redactedURL == "http://<redacted>@proxy.corp.example:3128")
        #expect(proxy.description == "http://<redacted>@proxy.corp.example:3128 (NO_PROXY: localhost)")
        var dumped = ""
        dump(proxy, to: &dumped)
        for text in [proxy.description, proxy.redactedURL, dumped, String(reflecting: proxy), "\(proxy)"] {
            #expect(!text.contains("s3cret"))
            #expect(!text.contains("alice"))
        }
        #expect(try ProxyConfiguration(url: "http://[::1]:3128").redactedURL == "http://[::1]:3128")
    }

    @Test(
        "unusable URLs are configuration errors that name the problem without the credentials",
        arguments: [
            ("", "empty"),
            ("https://proxy:3128", "https://"),
            ("socks5://proxy:1080", "socks5"),
            ("http://alice:s3cret@proxy:3128/path", "no path"),
            ("http://alice:s3cret@proxy:99999", "1 to 65535"),
            ("http://alice:s3cret@proxy:", "1 to 65535"),
            ("http://::1:3128", "brackets"),
            ("http://[::1:3128", "']'"),
            ("http://:s3cret@proxy:3128", "without a user name"),
            ("http://alice:s3cret@pro%00xy:3128", "byte"),
        ])
    func malformed(url: String, problem: String) {
        let error = #expect(throws: PinningConfigurationError.self) { try ProxyConfiguration(url: url) }
        guard case let .malformedProxy(shown, reason)? = error else {
            Issue.record("expected malformedProxy, got \(String(describing: error))")
            return
        }
        #expect(reason.contains(problem), "\(reason)")
        #expect(!shown.contains("s3cret"))
        #expect(!(error?.description.contains("s3cret") ?? true))
    }

    @Test(
        "a password that looks like a scheme or a port never shows in the error",
        arguments: [
            ("alice:pa://ss@proxy:3128", ["alice", "pa:", "ss@"]),
            ("alice:hunt://er2@proxy:3128", ["alice", "hunt", "er2"]),
            ("http://alice:hunter2", ["hunter2", "hunt"]),
            ("alice:hunter2/", ["hunter2", "hunt"]),
        ])
    func passwordNeverEchoed(url: String, secrets: [String]) {
        let error = #expect(throws: PinningConfigurationError.self) { try ProxyConfiguration(url: url) }
        for text in [error?.description ?? "", error?.localizedDescription ?? "", String(describing: error)] {
            for secret in secrets {
                #expect(!text.contains(secret), "\(text)")
            }
        }
    }

    @Test("the environment is read only when asked: https_proxy before HTTPS_PROXY, no_proxy before NO_PROXY")
    func environment() throws {
        #expect(try ProxyConfiguration.fromEnvironment([:]) == nil)
        #expect(try ProxyConfiguration.fromEnvironment(["HTTPS_PROXY": "  ", "HTTP_PROXY": "http://plain:80"]) == nil)
        let upper = try #require(try ProxyConfiguration.fromEnvironment(["HTTPS_PROXY": "proxy:3128", "NO_PROXY": "localhost"]))
        #expect(upper.host == "proxy")
        #expect(upper.noProxy == "localhost")
        let lower = try #require(
            try ProxyConfiguration.fromEnvironment([
                "https_proxy": "lower:1", "HTTPS_PROXY": "upper:2", "no_proxy": "a.example", "NO_PROXY": "b.example",
            ]))
        #expect(lower.host == "lower")
        #expect(lower.noProxy == "a.example")
        #expect(throws: PinningConfigurationError.self) {
            try ProxyConfiguration.fromEnvironment(["HTTPS_PROXY": "socks5://proxy:1080"])
        }
    }

    @Test("the tunnel is used unless NO_PROXY lists the host")
    func tunnels() throws {
        let proxy = try ProxyConfiguration(url: "proxy:3128", noProxy: ".internal.example, 10.0.0.0/8")
        #expect(proxy.tunnels(to: try CanonicalHost("api.example.com"), port: 443))
        #expect(!proxy.tunnels(to: try CanonicalHost("svc.internal.example"), port: 443))
        #expect(!proxy.tunnels(to: try CanonicalHost("10.2.3.4"), port: 443))
        let connector = OriginConnector(proxy: proxy)
        #expect(connector.proxy(for: "api.example.com", port: 443) == proxy)
        #expect(connector.proxy(for: "svc.internal.example", port: 443) == nil)
        #expect(OriginConnector().proxy(for: "api.example.com", port: 443) == nil)
    }
}
