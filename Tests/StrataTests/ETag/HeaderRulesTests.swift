@testable import Strata
import Testing

@Suite("HeaderRules")
struct HeaderRulesTests {
    @Test(
        "a Connection value is a list when it holds a comma, space or tab, read in place or byte by byte",
        arguments: [
            ("keep-alive", false), ("close", false), ("X-Trace", false), ("", false),
            ("close, X-Hop", true), ("X-A X-B", true), ("X-A\tX-B", true), (" X-Trace", true),
        ])
    func listSeparators(value: String, isList: Bool) {
        #expect(HeaderRules.containsListSeparator(value) == isList)
        // The walk a string without contiguous UTF-8 takes.
        #expect(HeaderRules.containsListSeparator(in: value.utf8) == isList)
    }

    @Test("the names a Connection field lists: one name as sent, a list split and trimmed, Keep-Alive left out")
    func connectionNames() {
        func names(_ value: String) -> [String] { HeaderRules.connectionNames(in: HTTPHeaders([("Connection", value)])) }
        #expect(names("X-Trace") == ["X-Trace"])
        #expect(names("close") == ["close"])
        #expect(names("keep-alive").isEmpty)
        #expect(names("close, X-Hop") == ["close", "X-Hop"])
        // A space sends the value down the list path, which trims it.
        #expect(names(" X-Trace\t") == ["X-Trace"])
    }

    @Test(
        "hop-by-hop fields and Set-Cookie are never stored, in any ASCII case, read in place or byte by byte",
        arguments: [
            ("Connection", true), ("keep-alive", true), ("TRANSFER-ENCODING", true), ("te", true),
            ("Proxy-Authorization", true), ("set-cookie", true), ("Set-Cookie2", true),
            ("Content-Type", false), ("Connectiom", false), ("Date", false), ("", false),
            ("Keep-Alive-Extra", false), ("Cookie", false),
        ])
    func alwaysUnstorable(name: String, unstorable: Bool) {
        #expect(HeaderRules.isAlwaysUnstorable(name) == unstorable)
        // The walk a string without contiguous UTF-8 takes.
        #expect(HeaderRules.isAlwaysUnstorable(bytes: name.utf8) == unstorable)
    }
}
