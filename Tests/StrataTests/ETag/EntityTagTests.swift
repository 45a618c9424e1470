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
