/// An entity tag (RFC 9110 §8.8.3), parsed leniently: servers that forget the quotes still get
/// their tag compared sensibly.
struct EntityTag: Hashable, Sendable {
    /// The tag without its weakness indicator or quotes.
    var opaque: String
    /// Whether the tag carried the `W/` prefix.
    var isWeak: Bool

    /// Parses one field value such as `"abc"`, `W/"abc"` or a bare `abc`; `nil` when empty.
    init?(_ field: String) {
        if let parsed = Self.parsedASCII(field) {
            guard let parsed = parsed else { return nil }
            self = parsed
            return
        }
        var text = Substring(field.trimmingASCIIWhitespace())
        isWeak = text.hasPrefix("W/")
        if isWeak { text = text.dropFirst(2) }
        if text.count >= 2, text.first == "\"", text.last == "\"" { text = text.dropFirst().dropLast() }
        guard !text.isEmpty || field.contains("\"") else { return nil }
        opaque = String(text)
    }

    private init(opaque: String, isWeak: Bool) {
        self.opaque = opaque
        self.isWeak = isWeak
    }

    /// ``init(_:)`` over the bytes of a printable-ASCII field (every ETag in practice), where a
    /// byte is a character; `nil` for another field, which is parsed by characters.
    private static func parsedASCII(_ field: String) -> EntityTag?? {
        var field = field
        return field.withUTF8 { bytes -> EntityTag?? in
            guard bytes.allSatisfy({ (0x20...0x7E).contains($0) || $0 == 0x09 }) else { return nil }
            var start = 0, end = bytes.count
            while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
            while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
            let isWeak = end - start >= 2 && bytes[start] == UInt8(ascii: "W") && bytes[start + 1] == UInt8(ascii: "/")
            if isWeak { start += 2 }
            if end - start >= 2, bytes[start] == UInt8(ascii: "\""), bytes[end - 1] == UInt8(ascii: "\"") {
                start += 1
                end -= 1
            }
            guard start < end || bytes.contains(UInt8(ascii: "\"")) else { return .some(nil) }
            return EntityTag(
                opaque: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self),
                isWeak: isWeak)
        }
    }

    /// Weak comparison (RFC 9110 §8.8.3.2): the opaque tags match, whatever their weakness.
    /// `If-None-Match` uses it, so a 304 for `W/"a"` confirms a stored `"a"`.
    func weaklyMatches(_ other: EntityTag) -> Bool { opaque == other.opaque }
}

extension String {
    /// The string without leading and trailing spaces and horizontal tabs (RFC 9110 §5.6.3 OWS).
    func trimmingASCIIWhitespace() -> String {
        // Printable ASCII (header values in practice): a byte is a character, so trim bytes.
        let bytes = utf8
        if bytes.allSatisfy({ (0x20...0x7E).contains($0) || $0 == 0x09 }) {
            let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
            guard let start = bytes.firstIndex(where: { !isSpace($0) }),
                let end = bytes.lastIndex(where: { !isSpace($0) })
            else { return "" }
            if start == bytes.startIndex, bytes.index(after: end) == bytes.endIndex { return self }
            return String(Substring(bytes[start...end]))
        }
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }),
            let end = lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(self[start...end])
    }
}
