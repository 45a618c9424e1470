import Foundation
@testable import StrataDemoKit
import Testing

@Suite("A body streamed to a terminal is escaped the same wherever the network cut it")
struct TerminalTextStreamTests {
    /// ESC, a C1 CSI and OSC (two bytes each in UTF-8), DEL, a CRLF, a lone CR, a tab, and
    /// non-ASCII text (two, three and four bytes) that must pass unchanged.
    static let body = Array("é\u{1B}[2J\u{9B}2J\u{9D}0;x\u{9C}\u{7F}\r\nhidden\rshown\t€ 𝄞\n".utf8)
    static let shown = #"é\u{1B}[2J\u{9B}2J\u{9D}0;x\u{9C}\u{7F}"# + "\r\n" + #"hidden\u{D}shown"# + "\t€ 𝄞\n"

    static func escaped(_ pieces: [ArraySlice<UInt8>]) -> String {
        var stream = TerminalTextStream()
        return pieces.map { stream.escaping($0) }.joined() + stream.finishing()
    }

    @Test("whole, byte by byte, or cut in two anywhere: the same text, controls escaped, CRLF and non-ASCII kept")
    func anyCut() {
        #expect(Self.escaped([Self.body[...]]) == Self.shown)
        #expect(Self.escaped(Self.body.indices.map { Self.body[$0...$0] }) == Self.shown)
        for cut in Self.body.indices {
            #expect(Self.escaped([Self.body[..<cut], Self.body[cut...]]) == Self.shown, "cut at \(cut)")
        }
    }

    @Test("a piece ending in the middle of a C1 control writes nothing of it until the rest comes")
    func holdsAnUnfinishedCharacter() {
        var stream = TerminalTextStream()
        #expect(stream.escaping([0x41, 0xC2]) == "A")
        #expect(stream.escaping([0x9B, 0x42]) == #"\u{9B}B"#)
        #expect(stream.escaping(Array("a\r".utf8)) == "a")
        #expect(stream.escaping(Array("\nb".utf8)) == "\r\nb")
    }

    @Test("bytes that are not UTF-8, a lone 0x9B included, show as U+FFFD; so does a sequence the body ends in")
    func notUTF8() {
        #expect(Self.escaped([[0x9B, 0x32, 0x4A, 0xFF, 0xC0, 0x9B]]) == "\u{FFFD}2J\u{FFFD}\u{FFFD}\u{FFFD}")
        #expect(Self.escaped([[0x41, 0xE2, 0x82]]) == "A\u{FFFD}")
        #expect(Self.escaped([Array("end\r".utf8)[...]]) == #"end\u{D}"#)
    }

    @Test("a NUL within the first 2,000 bytes refuses the body, even in a later piece; one after them is escaped")
    func binaryCheck() {
        var binary = TerminalBody()
        #expect(binary.text(for: [UInt8](repeating: 0x61, count: 1_999)) != nil)
        #expect(binary.text(for: [0x00, 0x61]) == nil)

        var text = TerminalBody()
        #expect(text.text(for: [UInt8](repeating: 0x61, count: 2_000)) != nil)
        #expect(text.text(for: [0x00, 0x61]) == #"\u{0}a"#)
        #expect(text.end() == "")
    }
}
