/// An entity tag (RFC 9110 §8.8.3), parsed leniently: servers that forget the quotes still get
/// their tag compared sensibly.
struct EntityTag: Hashable, Sendable {
    /// The tag without its weakness indicator or quotes.
    var opaque: String
    /// Whether the tag carried the `W/` prefix.
    var isWeak: Bool

    /// Parses one field value such as `"abc"`, `W/"abc"` or a bare `abc`; `nil` when empty.
    init?(_ field: String) {
        var text = Substring(field.trimmingASCIIWhitespace())
        isWeak = text.hasPrefix("W/")
        if isWeak { text = text.dropFirst(2) }
        if text.count >= 2, text.first == "\"", text.last == "\"" { text = text.dropFirst().dropLast() }
        guard !text.isEmpty || field.contains("\"") else { return nil }
        opaque = String(text)
    }

    /// Weak comparison (RFC 9110 §8.8.3.2): the opaque tags match, whatever their weakness.
    /// `If-None-Match` uses it, so a 304 for `W/"a"` confirms a stored `"a"`.
    func weaklyMatches(_ other: EntityTag) -> Bool { opaque == other.opaque }
}

extension String {
    /// The string without leading and trailing spaces and horizontal tabs (RFC 9110 §5.6.3 OWS).
    func trimmingASCIIWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }),
              let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[start...end])
    }
}
