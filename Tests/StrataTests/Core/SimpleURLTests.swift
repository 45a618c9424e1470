#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import Testing

@Suite("SimpleURL: one scan gives what URLComponents gives for URLs of the common shape")
struct SimpleURLTests {
    /// URLs of the common shape: every part as URLComponents reads it.
    static let common = [
        "https://api.example.com/v1/todos?page=1", "HTTPS://API.Example.COM:8443/X?Y#Z", "https://a.com",
        "https://a.com?", "https://a.com/x?", "https://a.com/x#", "https://a.com/x?a=b#", "https://a.com:8080",
        "https://a.com/%7Euser/%E2%82%AC?q=%20#f", "http://localhost:8080/a/../b", "https://a.com//x",
        "https://a.com/x;p?q?r", "ftp://a.com/x", "https://a.com:65535/x", "https://A.com./x", "https://a-b.c0m/x?a=b&c=d",
        "https://a.com/x?a=%zz", "https://a.com/#only-a-fragment", "git+ssh://host.example/repo.git",
        "https://a.com/ü?q=é", // Foundation percent-encodes these: the text is ASCII again.
    ]

    /// URLs of another shape: URLComponents reads them.
    static let other = [
        "https://user:pw@a.com/x", "https://user@a.com/x", "https://[::1]:8080/x", "https://a.com:0443/x",
        "https://a.com:/x", "https://xn--bcher-kva.example/x", "https://B%C3%BCcher.example/x", "file:///tmp/x",
        "https://a.com:123456/x", "mailto:someone@example.com",
    ]

    @Test("scheme, host, port, path and query are URLComponents' percent-encoded ones", arguments: common)
    func partsMatchURLComponents(text: String) throws {
        let url = try #require(URL(string: text))
        let parts = try #require(SimpleURL(url))
        let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: true))
        #expect(String(parts.scheme) == components.scheme)
        #expect(String(parts.host) == components.percentEncodedHost)
        #expect(parts.port == components.port)
        #expect(String(parts.path) == components.percentEncodedPath)
        #expect(parts.query.map(String.init) == components.percentEncodedQuery)
    }

    @Test(
        "userinfo, IP literals, odd ports, international and percent-encoded hosts are left to URLComponents",
        arguments: other)
    func otherShapesAreRefused(text: String) {
        guard let url = URL(string: text) else { return } // Foundation refused it: nothing to compare.
        #expect(SimpleURL(url) == nil)
        #expect(SimpleURL.resource(ofAbsoluteString: url.absoluteString) == nil)
    }

    @Test(
        "the resource is the ETag key's: URLComponents without fragment or userinfo, scheme and host lower-cased",
        arguments: common + other)
    func resourceMatchesURLComponents(text: String) throws {
        guard let url = URL(string: text) else { return }
        #expect(ResourceKey(url) == ResourceKey.parsed(url, absoluteString: url.absoluteString))
    }

    @Test("a relative URL is read as its absolute form")
    func relativeURL() throws {
        let url = try #require(URL(string: "x/y?z#f", relativeTo: URL(string: "https://A.com/base/")))
        #expect(ResourceKey(url) == ResourceKey.parsed(url, absoluteString: url.absoluteString))
        #expect(try #require(SimpleURL(url)).path == "/base/x/y")
    }
}
