@testable import StrataPinning
import Testing

@Suite("NO_PROXY follows curl's rules: suffixes, a leading dot, *, ports, IP literals and CIDR blocks")
struct NoProxyListTests {
    static func bypasses(_ list: String, _ host: String, port: Int = 443) -> Bool {
        NoProxyList(list).bypasses(try! CanonicalHost(host), port: port)
    }

    @Test("a name matches itself and every host below it, on a label boundary only")
    func suffixes() {
        #expect(Self.bypasses("example.com", "example.com"))
        #expect(Self.bypasses("example.com", "api.example.com"))
        #expect(Self.bypasses("example.com", "a.b.example.com"))
        #expect(!Self.bypasses("example.com", "notexample.com"))
        #expect(!Self.bypasses("example.com", "example.com.evil.test"))
        #expect(!Self.bypasses("api.example.com", "example.com"))
    }

    @Test("a leading dot or *. matches the same hosts as the bare name")
    func leadingDot() {
        for entry in [".example.com", "*.example.com"] {
            #expect(Self.bypasses(entry, "example.com"))
            #expect(Self.bypasses(entry, "api.example.com"))
            #expect(!Self.bypasses(entry, "notexample.com"))
        }
    }

    @Test("case and one trailing dot are ignored, on either side")
    func caseAndTrailingDot() {
        #expect(Self.bypasses("EXAMPLE.com.", "api.Example.COM"))
        #expect(Self.bypasses("example.com", "api.example.com."))
    }

    @Test("* alone matches every host; * inside a longer entry is not a wildcard")
    func star() {
        #expect(Self.bypasses("*", "anything.example"))
        #expect(Self.bypasses("localhost, *", "10.1.2.3"))
        #expect(!Self.bypasses("api*.example.com", "api1.example.com"))
    }

    @Test("entries are separated by commas or white space")
    func separators() {
        let list = " localhost,internal.example  other.test\t10.0.0.0/8 , "
        #expect(NoProxyList(list).entries.count == 4)
        #expect(Self.bypasses(list, "localhost"))
        #expect(Self.bypasses(list, "svc.internal.example"))
        #expect(Self.bypasses(list, "other.test"))
        #expect(!Self.bypasses(list, "example.com"))
        #expect(NoProxyList("").entries.isEmpty)
    }

    @Test("host:port matches that port only; [IPv6]:port too")
    func ports() {
        #expect(Self.bypasses("example.com:8443", "api.example.com", port: 8443))
        #expect(!Self.bypasses("example.com:8443", "api.example.com", port: 443))
        #expect(Self.bypasses("[::1]:8443", "::1", port: 8443))
        #expect(!Self.bypasses("[::1]:8443", "::1", port: 443))
        #expect(Self.bypasses("127.0.0.1:8443", "127.0.0.1", port: 8443))
        #expect(!Self.bypasses("127.0.0.1:8443", "127.0.0.1", port: 80))
    }

    @Test("IP literals match the address in any spelling, and never a name")
    func ipLiterals() {
        #expect(Self.bypasses("127.0.0.1", "127.1"))
        #expect(Self.bypasses("::1", "[0:0:0:0:0:0:0:1]"))
        #expect(Self.bypasses("[::1]", "::1"))
        // An IPv4-mapped IPv6 host is its IPv4 address, for NO_PROXY as for pins.
        #expect(Self.bypasses("10.1.2.3", "::ffff:10.1.2.3"))
        #expect(!Self.bypasses("127.0.0.1", "localhost"))
        #expect(!Self.bypasses("localhost", "127.0.0.1"))
        // A name entry is not a suffix of an address.
        #expect(!Self.bypasses("0.1", "10.0.0.1"))
    }

    @Test("CIDR blocks match every address inside them, IPv4 and IPv6")
    func cidr() {
        #expect(Self.bypasses("10.0.0.0/8", "10.200.3.4"))
        #expect(!Self.bypasses("10.0.0.0/8", "11.0.0.1"))
        #expect(Self.bypasses("192.168.1.0/25", "192.168.1.127"))
        #expect(!Self.bypasses("192.168.1.0/25", "192.168.1.128"))
        #expect(Self.bypasses("fd00::/8", "fd12:3456::1"))
        #expect(!Self.bypasses("fd00::/8", "fe80::1"))
        #expect(Self.bypasses("0.0.0.0/0", "203.0.113.9"))
        #expect(!Self.bypasses("10.0.0.0/8", "example.com"))
        // ::ffff:a00:1 is 10.0.0.1 written as IPv4-mapped IPv6.
        #expect(Self.bypasses("10.0.0.0/8", "::ffff:a00:1"))
    }

    @Test("unreadable entries match nothing and leave the others working")
    func unreadable() {
        let list = "<local>, http://example.com, 10.0.0.0/33, example.org:99999, [::1, good.example"
        #expect(NoProxyList(list).entries == [.domain("good.example", port: nil)])
        #expect(!Self.bypasses(list, "example.com"))
        #expect(Self.bypasses(list, "good.example"))
    }
}
