@testable import StrataPinning
import Testing

@Suite("CanonicalHost: one form of the host for matching, pooling, SNI, verification and resolution")
struct CanonicalHostTests {
    @Test(
        "names are lowercased and lose one trailing dot; IP literals take their inet_ntop form",
        arguments: [
            ("API.Example.COM.", "api.example.com", false),
            ("localhost", "localhost", false),
            ("_svc.example.com", "_svc.example.com", false),
            ("127.0.0.1", "127.0.0.1", true),
            ("127.1", "127.0.0.1", true),
            ("0x7f.0.0.1", "127.0.0.1", true),
            ("0177.0.0.1", "127.0.0.1", true),
            ("0:0:0:0:0:0:0:1", "::1", true),
            ("[::1]", "::1", true),
            ("[0:0::1]", "::1", true),
            ("::FFFF:7F00:1", "127.0.0.1", true),
        ])
    func canonicalForms(host: String, expected: String, isIP: Bool) throws {
        let canonical = try CanonicalHost(host)
        #expect(canonical.name == expected)
        #expect(canonical.isIPAddress == isIP)
    }

    @Test(
        "a host with a byte that cannot be in a host name is refused, naming the byte",
        arguments: [
            "localhost\0.evil.test", "localhost\0", "a b.example", "a%00b.example", "bücher.example",
            "a/b.example", "a\r\nb.example", "a\\b.example",
        ])
    func disallowedBytes(host: String) {
        #expect(throws: CanonicalHostError.self) { try CanonicalHost(host) }
    }

    @Test("the NUL is shown in the message, not passed through")
    func nulMessage() {
        let error = #expect(throws: CanonicalHostError.self) { try CanonicalHost("localhost\0.evil.test") }
        #expect(error?.description.contains("0x0") == true)
        #expect(error?.description.contains("localhost\\u{0}.evil.test") == true)
        #expect(error?.description.contains("\0") == false)
    }

    @Test(
        "empty hosts, empty labels, two trailing dots and bad IPv6 literals are refused",
        arguments: ["", ".", "a..b", ".a", "a.b..", "fe80::1%eth0", "1:2:3", "[::1", "x:y"])
    func malformed(host: String) {
        #expect(throws: CanonicalHostError.self) { try CanonicalHost(host) }
    }

    @Test("a name longer than 253 characters is refused")
    func tooLong() {
        let label = String(repeating: "a", count: 60)
        #expect(throws: CanonicalHostError.tooLong(host: [label, label, label, label, label].joined(separator: "."))) {
            try CanonicalHost([label, label, label, label, label].joined(separator: "."))
        }
    }

    @Test("a NUL-split host matches no pattern, though the part after the NUL would")
    func nulMatchesNothing() throws {
        #expect(try HostPattern("**.evil.test").matches("localhost\0.evil.test") == false)
        #expect(try HostPattern("*.evil.test").matches("localhost\0.evil.test") == false)
        #expect(try HostPattern("localhost").matches("localhost\0.evil.test") == false)
        let domains = try PinnedDomains(["**.evil.test": Pinning.pins(Fixtures.Pin.ca)])
        #expect(domains.evaluator(forHost: "localhost\0.evil.test") == nil)
    }

    @Test("other spellings of an IP address match the pattern written for it, in either direction")
    func ipSpellingsMatch() throws {
        #expect(try HostPattern("127.0.0.1").matches("127.1"))
        #expect(try HostPattern("127.0.0.1").matches("0x7f.0.0.1"))
        #expect(try HostPattern("::1").matches("0:0:0:0:0:0:0:1"))
        #expect(try HostPattern("0:0:0:0:0:0:0:1").matches("::1"))
        #expect(try HostPattern("0:0:0:0:0:0:0:1").matches("[::1]"))
        #expect(try HostPattern("127.0.0.1").matches("127.0.0.2") == false)
    }

    @Test("wildcards never match an IP address")
    func wildcardsSkipIPs() throws {
        #expect(try HostPattern("**.0.0.1").matches("127.0.0.1") == false)
        #expect(try HostPattern("*.0.0.1").matches("127.0.0.1") == false)
    }

    @Test("a trailing dot is the same host for matching as without")
    func trailingDot() throws {
        #expect(try CanonicalHost("api.example.com.") == CanonicalHost("api.example.com"))
        #expect(try HostPattern("api.example.com").matches("api.example.com."))
        #expect(try HostPattern("api.example.com").matches("api.example.com..") == false)
    }
}
