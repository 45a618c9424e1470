@testable import StrataPinning
import Testing

@Suite("HTTPStatusCodeRule reads a status code")
struct HTTPStatusCodeRuleTests {
    @Test("three ASCII digits from 100 to 599 are a status code", arguments: ["100", "200", "404", "599"])
    func valid(value: String) throws {
        #expect(try HTTPStatusCodeRule.statusCode(Array(value.utf8)) == Int(value))
    }

    @Test(
        "anything else is refused, naming the value quoted",
        arguments: [
            ("099", HTTPStatusCodeRule.Violation.outOfRange(shown: "\"099\"")),
            ("600", .outOfRange(shown: "\"600\"")),
            ("20", .notThreeDigits(shown: "\"20\"")),
            ("2OO", .notThreeDigits(shown: "\"2OO\"")),
            ("+20", .notThreeDigits(shown: "\"+20\"")),
            ("", .notThreeDigits(shown: "\"\"")),
        ])
    func refused(value: String, violation: HTTPStatusCodeRule.Violation) {
        #expect(throws: violation) { try HTTPStatusCodeRule.statusCode(Array(value.utf8)) }
    }

    @Test("a long or unprintable value is shown short and escaped, never as raw bytes")
    func shownShortAndEscaped() {
        let value = Array("2\r\n\u{1B}[31m".utf8) + Array(repeating: UInt8(ascii: "9"), count: 1_000)
        let shown = HTTPStatusCodeRule.shown(value)
        #expect(shown == "\"2\\x0D\\x0A\\x1B[31m…\"")
    }
}
