@testable import StrataPinning
import Testing

@Suite("Host patterns")
struct HostPatternTests {
    @Test(
        "an exact pattern matches only that host",
        arguments: [
            ("api.example.com", true), ("example.com", false), ("www.api.example.com", false), ("api.example.org", false),
        ])
    func exact(host: String, matches: Bool) throws {
        #expect(try HostPattern("api.example.com").matches(host) == matches)
    }

    @Test(
        "*. matches exactly one extra label",
        arguments: [
            ("api.example.com", true), ("www.example.com", true),
            ("example.com", false), ("a.b.example.com", false), ("api.example.org", false), ("notexample.com", false),
        ])
    func oneLabel(host: String, matches: Bool) throws {
        #expect(try HostPattern("*.example.com").matches(host) == matches)
    }

    @Test(
        "**. matches any depth, the apex included",
        arguments: [
            ("example.com", true), ("api.example.com", true), ("a.b.c.example.com", true),
            ("notexample.com", false), ("example.com.evil.net", false), ("com", false),
        ])
    func anyDepth(host: String, matches: Bool) throws {
        #expect(try HostPattern("**.example.com").matches(host) == matches)
    }

    @Test("matching ignores case and one trailing dot on both sides")
    func caseAndTrailingDot() throws {
        #expect(try HostPattern("API.Example.COM.").matches("api.example.com"))
        #expect(try HostPattern("api.example.com").matches("Api.EXAMPLE.com."))
        #expect(try HostPattern("*.Example.com").matches("WWW.example.COM."))
        #expect(try HostPattern("**.example.com").description == "**.example.com")
        #expect(try HostPattern("API.Example.COM.").description == "api.example.com")
    }

    @Test("IP literals match exactly, IPv6 with or without brackets")
    func ipLiterals() throws {
        #expect(try HostPattern("127.0.0.1").matches("127.0.0.1"))
        #expect(try HostPattern("127.0.0.1").matches("127.0.0.2") == false)
        #expect(try HostPattern("::1").matches("[::1]"))
    }

    @Test(
        "malformed patterns are rejected at construction with a reason",
        arguments: [
            ("", "empty"),
            (".", "empty"),
            ("*", "wildcard needs a domain"),
            ("**", "wildcard needs a domain"),
            ("*.", "wildcard needs a domain"),
            ("api.*.example.com", "leftmost"),
            ("*api.example.com", "leftmost"),
            ("a*.example.com", "leftmost"),
            ("***.example.com", "leftmost"),
            ("*.*.example.com", "leftmost"),
            ("api..example.com", "empty label"),
            (".example.com", "empty label"),
            ("*..example.com", "empty label"),
            ("api example.com", "not allowed"),
            ("api.example.com/path", "write 'api.example.com'"),
            ("bücher.example", "xn--"),
            (String(repeating: "a", count: 64) + ".com", "longer than 63"),
            (String(repeating: "a.", count: 127) + "com", "longer than 253"),
        ])
    func malformed(pattern: String, reason expected: String) {
        #expect {
            try HostPattern(pattern)
        } throws: { error in
            guard case let .malformedHostPattern(text, reason) = error as? PinningConfigurationError else { return false }
            return text == pattern && reason.contains(expected)
        }
    }

    @Test("the error message shows the accepted syntax")
    func errorMessage() {
        let error = PinningConfigurationError.malformedHostPattern("a.*.b", reason: "x")
        #expect(error.description.contains("'*.example.com' (one extra label)"))
    }
}
