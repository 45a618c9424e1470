/// A body on its way to a terminal, escaped piece by piece as it streams: what
/// ``TerminalText/escaping(_:keepingLineBreaks:)`` does for a line, for bytes the network cut
/// anywhere.
///
/// Written as they are: text, `\n`, `\t`, and `\r` directly followed by `\n` (a CRLF line end,
/// common in HTTP bodies, moves the cursor no differently from `\n`). Written as visible escapes
/// (`\u{1B}`, `\u{9B}`): every other C0 control, DEL, each C1 control, and a `\r` on its own,
/// which returns the cursor to overwrite the line just printed, the simplest way to hide text.
/// Bytes that are not UTF-8 become U+FFFD, as `String(decoding:as:)` makes them: a terminal set
/// to an 8-bit character set takes a lone 0x9B byte for a CSI.
///
/// A character split between two pieces (a C1 control is two bytes, 0xC2 0x9B), or a `\r` whose
/// `\n` may start the next piece, is held back until the next piece or ``finishing()``, so what
/// is written does not depend on where the body was cut.
struct TerminalTextStream: Sendable {
    /// The end of the previous piece not written yet: at most three bytes of an unfinished UTF-8
    /// sequence, or one `\r`.
    private var held: [UInt8] = []

    /// Creates a stream at the start of a body.
    init() {}

    /// The text to write for the next `piece` of the body, escaped; the end of `piece` may be
    /// held back for the next call.
    mutating func escaping(_ piece: some Collection<UInt8>) -> String {
        var bytes = held
        bytes.append(contentsOf: piece)
        let ready = Self.readyCount(bytes)
        held = Array(bytes[ready...])
        return Self.escape(bytes[..<ready])
    }

    /// The text to write once the body ended: what was held back, with a final `\r` escaped and
    /// an unfinished UTF-8 sequence as U+FFFD.
    mutating func finishing() -> String {
        defer { held = [] }
        return Self.escape(held[...])
    }

    /// How many leading `bytes` can be escaped now: all but a final `\r` or an unfinished
    /// UTF-8 sequence at the end.
    private static func readyCount(_ bytes: [UInt8]) -> Int {
        guard let last = bytes.last else { return 0 }
        if last == carriageReturn { return bytes.count - 1 }
        // The last byte that starts a sequence, within the longest sequence UTF-8 has (four bytes).
        let start = bytes.indices.suffix(4).last { !isContinuation(bytes[$0]) }
        guard let start else { return bytes.count }
        return bytes.count - start < sequenceLength(startingWith: bytes[start]) ? start : bytes.count
    }

    /// `bytes` decoded and escaped; `bytes` does not end in the middle of a CRLF unless the body did.
    private static func escape(_ bytes: ArraySlice<UInt8>) -> String {
        // Most pieces are plain text: ASCII without a control other than a line feed or a tab.
        if bytes.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == lineFeed || $0 == tab }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        var text = String.UnicodeScalarView()
        var afterCarriageReturn = false
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        while true {
            let scalar: Unicode.Scalar
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): scalar = Unicode.UTF8.decode(encoded)
            case .error: scalar = "\u{FFFD}"
            case .emptyInput:
                if afterCarriageReturn { TerminalText.append(escapeOf: "\r", to: &text) }
                return String(text)
            }
            if afterCarriageReturn {
                // The `\r` before this scalar: a line end before `\n`, an overwrite otherwise.
                if scalar == "\n" { text.append("\r") } else { TerminalText.append(escapeOf: "\r", to: &text) }
                afterCarriageReturn = false
            }
            switch scalar {
            case "\r": afterCarriageReturn = true
            case "\n", "\t": text.append(scalar)
            case _ where TerminalText.isControl(scalar): TerminalText.append(escapeOf: scalar, to: &text)
            default: text.append(scalar)
            }
        }
    }

    private static let carriageReturn = UInt8(ascii: "\r")
    private static let lineFeed = UInt8(ascii: "\n")
    private static let tab = UInt8(ascii: "\t")

    private static func isContinuation(_ byte: UInt8) -> Bool { byte & 0xC0 == 0x80 }

    /// How many bytes a sequence starting with `byte` has (RFC 3629 §4); 1 for a byte that
    /// cannot start one, which the parser then reports as an error at once.
    private static func sequenceLength(startingWith byte: UInt8) -> Int {
        switch byte {
        case 0xC2...0xDF: 2
        case 0xE0...0xEF: 3
        case 0xF0...0xF4: 4
        default: 1
        }
    }
}
