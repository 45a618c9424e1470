@testable import Strata
import Testing

@Suite("Entity tags")
struct EntityTagTests {
    @Test("weak comparison ignores W/ on either side and compares the opaque tag")
    func weakComparison() throws {
        let strong = try #require(EntityTag("\"v1\""))
        let weak = try #require(EntityTag(" W/\"v1\" "))
        #expect(weak.isWeak && !strong.isWeak)
        #expect(strong.weaklyMatches(weak) && weak.weaklyMatches(strong))
        #expect(try !strong.weaklyMatches(#require(EntityTag("\"v2\""))))
    }

    @Test("an unquoted tag from a sloppy server still compares with its quoted form; blank is no tag")
    func lenientParsing() throws {
        #expect(try #require(EntityTag("abc")).weaklyMatches(#require(EntityTag("\"abc\""))))
        #expect(EntityTag("   ") == nil)
        #expect(EntityTag("\"\"")?.opaque == "")
    }
}

@Suite("Entity tags and trimming read by bytes give what reading by characters gives")
struct EntityTagByteParsingTests {
    @Test(
        "printable ASCII tags",
        arguments: [
            ("\"v1\"", "v1", false), ("W/\"v1\"", "v1", true), ("  W/\"a b\"\t", "a b", true), ("\"\"", "", false),
            ("W/\"\"", "", true), ("abc", "abc", false), ("\"a", "\"a", false), ("\"", "\"", false),
        ] as [(String, String, Bool)])
    func asciiTags(field: String, opaque: String, isWeak: Bool) throws {
        let tag = try #require(EntityTag(field))
        #expect(tag.opaque == opaque)
        #expect(tag.isWeak == isWeak)
    }

    @Test(
        "blank fields are no tag, and non-ASCII tags are read by characters",
        arguments: [
            ("", nil), ("  \t ", nil), ("W/", nil), ("\"é\"", "é"), (" W/\"tag-ü\" ", "tag-ü"), ("\"a\u{301}\"", "a\u{301}"),
        ] as [(String, String?)])
    func blankAndNonASCIITags(field: String, opaque: String?) {
        #expect(EntityTag(field)?.opaque == opaque)
    }

    @Test(
        "trimming spaces and tabs",
        arguments: [
            ("  a b\t", "a b"), ("ab", "ab"), ("\t \t", ""), ("", ""), (" é ", "é"), (" \u{301}x ", " \u{301}x"),
        ])
    func trimming(text: String, trimmed: String) {
        #expect(text.trimmingASCIIWhitespace() == trimmed)
    }
}
