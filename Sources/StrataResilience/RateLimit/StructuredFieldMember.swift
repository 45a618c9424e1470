import Strata

/// One member of a Structured Field List or Dictionary (RFC 9651 §3.1, §3.2), read as far as the
/// rate-limit fields need: `"default";r=0;t=30` (a List item with parameters) and `remaining=0`
/// (a Dictionary member).
///
/// Both grammars are read by one parser, because the drafts used both for the same field name:
/// a member with `key=value` is a Dictionary member, a member without is a List item. Inner lists
/// and Dates are not used by any rate-limit field; a field holding one is not understood.
struct StructuredFieldMember: Sendable, Equatable {
    /// A bare item (RFC 9651 §3.3).
    enum Item: Sendable, Equatable {
        /// An Integer: at most 15 digits, optionally negative.
        case integer(Int64)
        /// A Decimal: at most 12 integer and 3 fraction digits.
        case decimal(Double)
        /// A quoted String, unescaped.
        case string(String)
        /// A Token, such as `default`.
        case token(String)
        /// A Byte Sequence; its bytes are not needed, so not kept.
        case byteSequence
        /// A Boolean, `?1` or `?0`, or a parameter or member with no value.
        case boolean(Bool)
    }

    /// The Dictionary member's key, or `nil` for a List item.
    var key: String?
    /// The List item, or the Dictionary member's value.
    var item: Item
    /// The parameters, by key; a repeated key keeps its last value (RFC 9651 §4.2.3.2).
    var parameters: [String: Item]

    /// The parameter `key` as an Integer, or `nil` when absent or of another type.
    func integer(_ key: String) -> Int64? {
        guard case .integer(let value) = parameters[key] else { return nil }
        return value
    }

    /// The longest field read, in bytes: a dozen policies with names and parameters fit in a
    /// few hundred bytes; anything longer is not worth parsing on a request's path.
    static let maxFieldLength = 1_024
    /// The most members read: more policies than any server advertises.
    static let maxMembers = 32

    /// The members of `field`, or `nil` when it is empty, longer than ``maxFieldLength``, has
    /// more than ``maxMembers`` members or breaks the grammar: RFC 9651 §4.2 has a parser ignore
    /// the whole field when any part of it fails.
    static func parse(_ field: String) -> [StructuredFieldMember]? {
        let bytes = Array(field.utf8)
        guard !bytes.isEmpty, bytes.count <= maxFieldLength else { return nil }
        var reader = Reader(bytes: bytes)
        return reader.members()
    }

    /// A cursor over the field's bytes; every method returns `nil` where the grammar fails.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func members() -> [StructuredFieldMember]? {
            var members: [StructuredFieldMember] = []
            skip(where: Self.isSpace)
            while true {
                guard members.count < StructuredFieldMember.maxMembers, let member = member() else { return nil }
                members.append(member)
                skip(where: Self.isOptionalWhitespace)
                guard let next = current else { return members }
                guard next == UInt8(ascii: ",") else { return nil }
                index += 1
                skip(where: Self.isOptionalWhitespace)
                // A trailing comma is an error (RFC 9651 §4.2.1).
                guard current != nil else { return nil }
            }
        }

        private mutating func member() -> StructuredFieldMember? {
            let start = index
            if let key = key(), current == UInt8(ascii: "=") {
                index += 1
                guard let value = bareItem(), let parameters = parameters() else { return nil }
                return StructuredFieldMember(key: key, item: value, parameters: parameters)
            }
            // Not `key=`: read the same bytes again as a List item (a token is a superset of a key).
            index = start
            guard let item = bareItem(), let parameters = parameters() else { return nil }
            return StructuredFieldMember(key: nil, item: item, parameters: parameters)
        }

        private mutating func parameters() -> [String: Item]? {
            var parameters: [String: Item] = [:]
            while current == UInt8(ascii: ";") {
                index += 1
                skip(where: Self.isSpace)
                guard let key = key() else { return nil }
                if current == UInt8(ascii: "=") {
                    index += 1
                    guard let value = bareItem() else { return nil }
                    parameters[key] = value
                } else {
                    parameters[key] = .boolean(true)
                }
            }
            return parameters
        }

        /// `key = ( lcalpha / "*" ) *( lcalpha / DIGIT / "_" / "-" / "." / "*" )`.
        private mutating func key() -> String? {
            guard let first = current, Self.isLowercaseLetter(first) || first == UInt8(ascii: "*") else { return nil }
            let start = index
            skip { Self.isLowercaseLetter($0) || Self.isDigit($0) || "_-.*".utf8.contains($0) }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        private mutating func bareItem() -> Item? {
            guard let first = current else { return nil }
            switch first {
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: ":"): return byteSequence()
            case UInt8(ascii: "?"): return boolean()
            case UInt8(ascii: "*"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): return token()
            default: return nil
            }
        }

        /// RFC 9651 §4.2.4: an Integer has at most 15 digits, a Decimal at most 12 before and 3
        /// after the point, so neither can overflow.
        private mutating func number() -> Item? {
            var negative = false
            if current == UInt8(ascii: "-") {
                negative = true
                index += 1
            }
            let start = index
            skip(where: Self.isDigit)
            let integerDigits = index - start
            guard integerDigits > 0 else { return nil }
            guard current == UInt8(ascii: ".") else {
                guard integerDigits <= 15, let value = Int64(String(decoding: bytes[start..<index], as: UTF8.self)) else { return nil }
                return .integer(negative ? -value : value)
            }
            index += 1
            let fractionStart = index
            skip(where: Self.isDigit)
            let fractionDigits = index - fractionStart
            guard integerDigits <= 12, (1...3).contains(fractionDigits),
                let value = Double(String(decoding: bytes[start..<index], as: UTF8.self))
            else { return nil }
            return .decimal(negative ? -value : value)
        }

        /// A quoted string of printable ASCII, with `\"` and `\\` the only escapes.
        private mutating func string() -> Item? {
            index += 1
            var text: [UInt8] = []
            while let byte = current {
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return .string(String(decoding: text, as: UTF8.self))
                case UInt8(ascii: "\\"):
                    guard let escaped = current, escaped == UInt8(ascii: "\"") || escaped == UInt8(ascii: "\\") else { return nil }
                    index += 1
                    text.append(escaped)
                case 0x20...0x7E:
                    text.append(byte)
                default:
                    return nil
                }
            }
            return nil
        }

        /// `token = ( ALPHA / "*" ) *( tchar / ":" / "/" )`.
        private mutating func token() -> Item? {
            let start = index
            index += 1
            skip { HTTPHeaders.isTokenCharacter($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "/") }
            return .token(String(decoding: bytes[start..<index], as: UTF8.self))
        }

        private mutating func byteSequence() -> Item? {
            index += 1
            skip { Self.isBase64($0) }
            guard current == UInt8(ascii: ":") else { return nil }
            index += 1
            return .byteSequence
        }

        private mutating func boolean() -> Item? {
            index += 1
            guard let value = current, value == UInt8(ascii: "0") || value == UInt8(ascii: "1") else { return nil }
            index += 1
            return .boolean(value == UInt8(ascii: "1"))
        }

        private mutating func skip(where matches: (UInt8) -> Bool) {
            while let byte = current, matches(byte) { index += 1 }
        }

        private static func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") }
        private static func isOptionalWhitespace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        private static func isLowercaseLetter(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) }

        private static func isBase64(_ byte: UInt8) -> Bool {
            isDigit(byte) || isLowercaseLetter(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || "+/=".utf8.contains(byte)
        }

    }
}
