/// Byte-level rules of the HTTP grammar (RFC 9110 §5.6, and RFC 9112 for HTTP/1.1's framing), shared
/// by the encoders, the parser and the HTTP/2 client so all judge bytes the same way. Tokens are
/// judged by `HTTPHeaders.isTokenCharacter`, which header validation in the core uses too.
enum HTTPGrammar {
    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let colon = UInt8(ascii: ":")
    static let semicolon = UInt8(ascii: ";")
    static let comma = UInt8(ascii: ",")

    /// RFC 9110 §5.5: field values (and reason phrases) may hold HTAB, SP, VCHAR and obs-text;
    /// any other control character, CR, LF and NUL above all, is refused.
    static func isFieldValueCharacter(_ byte: UInt8) -> Bool {
        byte == tab || (byte >= 0x20 && byte != 0x7F)
    }

    /// Optional whitespace (OWS, RFC 9110 §5.6.3).
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == tab
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// The value of a hexadecimal digit, or `nil`.
    static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// ASCII lower case of a byte; other bytes unchanged.
    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// Whether `bytes` equal `lowercaseLiteral` ignoring ASCII case.
    static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer.SubSequence, _ lowercaseLiteral: [UInt8]) -> Bool {
        guard bytes.count == lowercaseLiteral.count else { return false }
        var index = bytes.startIndex
        for expected in lowercaseLiteral {
            if lowercased(bytes[index]) != expected { return false }
            index += 1
        }
        return true
    }

    /// `bytes` without leading and trailing optional whitespace.
    static func trimmingWhitespace(_ bytes: UnsafeRawBufferPointer.SubSequence) -> UnsafeRawBufferPointer.SubSequence {
        var lower = bytes.startIndex
        var upper = bytes.endIndex
        while lower < upper, isWhitespace(bytes[lower]) { lower += 1 }
        while upper > lower, isWhitespace(bytes[upper - 1]) { upper -= 1 }
        return bytes[lower..<upper]
    }

    /// Up to `limit` bytes of `bytes`, quoted, with anything unprintable escaped, for an error
    /// message a person can read without the bytes disturbing a terminal or a log line.
    static func excerpt(_ bytes: some Collection<UInt8>, limit: Int = 80) -> String {
        var text = "\""
        for byte in bytes.prefix(limit) {
            switch byte {
            case UInt8(ascii: "\""): text += "\\\""
            case UInt8(ascii: "\\"): text += "\\\\"
            case 0x20..<0x7F: text.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                text += "\\x"
                if byte < 0x10 { text += "0" }
                text += String(byte, radix: 16, uppercase: true)
            }
        }
        if bytes.count > limit { text += "…" }
        return text + "\""
    }
}
