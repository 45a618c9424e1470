/// The value of one request field that a stored response's `Vary` names, in the form two
/// requests are compared in (RFC 9111 §4.1): they select the same stored response when their
/// values match after the transformations that section allows.
///
/// - Every field: its field lines are combined, in order, with `", "` (RFC 9110 §5.3), each
///   line without the whitespace around it.
/// - The content-negotiation fields (`Accept`, `Accept-Charset`, `Accept-Encoding`,
///   `Accept-Language`), lists of case-insensitive tokens (RFC 9110 §12.5): whitespace around
///   list members, parameters and `=` is dropped, and so are empty members (§5.6.1); the token
///   and parameter names are lower-cased; parameter values are kept as sent (RFC 9110 §8.3.1:
///   whether they are case-sensitive depends on the parameter). `Accept-Language: en, fr` and
///   `Accept-Language: EN,fr` select the same response.
/// - Any other field is compared as sent: its grammar is unknown here (a custom header's
///   `Doe, John` need not be a list), and a wrong match would serve one variant to a request
///   that asked for another. Credentials never reach this type: they are compared as digests.
///
/// Members are never reordered: `en, fr` and `fr, en` state different preferences when neither
/// has a weight, and a server may answer them differently.
enum SelectingFieldValue {
    /// The lower-cased names of the fields whose values are lists of case-insensitive tokens.
    static let tokenListNames = ["accept", "accept-charset", "accept-encoding", "accept-language"]

    /// The value of the field `name` whose field lines are `values`, combined and normalised;
    /// `nil` when the request has no such field. An empty field stays an empty value, unlike an
    /// absent one.
    ///
    /// - Parameter name: The field's name, lower-cased.
    static func normalized(name: String, values: [String]) -> String? {
        guard !values.isEmpty else { return nil }
        let combined =
            values.count == 1
            ? values[0].trimmingASCIIWhitespace() : values.map { $0.trimmingASCIIWhitespace() }.joined(separator: ", ")
        return normalized(name: name, combined: combined)
    }

    /// `combined`, one field value (lines already combined), normalised as the field `name`'s:
    /// what ``normalized(name:values:)`` gives for it. Normalising twice changes nothing, so a
    /// value stored before normalisation existed compares equal to a new request's.
    ///
    /// - Parameter name: The field's name, lower-cased.
    static func normalized(name: String, combined: String) -> String {
        guard tokenListNames.contains(name) else { return combined }
        return splitOutsideQuotes(combined, at: ",").compactMap(normalizedMember).joined(separator: ", ")
    }

    /// One list member: `token *( ";" parameter )` with the token and parameter names
    /// lower-cased and no whitespace around the separators; `nil` for an empty member.
    private static func normalizedMember(_ member: Substring) -> String? {
        let parts = splitOutsideQuotes(member, at: ";").map { String($0).trimmingASCIIWhitespace() }
        guard let token = parts.first, !token.isEmpty else { return nil }
        var normalized = asciiLowercased(token)
        for parameter in parts.dropFirst() where !parameter.isEmpty {
            normalized += ";"
            guard let equals = parameter.firstIndex(of: "=") else {
                normalized += asciiLowercased(parameter)
                continue
            }
            let name = String(parameter[..<equals]).trimmingASCIIWhitespace()
            let value = String(parameter[parameter.index(after: equals)...]).trimmingASCIIWhitespace()
            normalized += asciiLowercased(name) + "=" + value
        }
        return normalized
    }

    /// The pieces of `text` between `separator`s that are not inside a quoted string (RFC 9110
    /// §5.6.4, where a backslash escapes the next character).
    private static func splitOutsideQuotes(_ text: some StringProtocol, at separator: Character) -> [Substring] {
        let text = Substring(text)
        var pieces: [Substring] = []
        var start = text.startIndex
        var index = text.startIndex
        var quoted = false
        while index < text.endIndex {
            let character = text[index]
            if quoted, character == "\\" {
                index = text.index(after: index)
                if index < text.endIndex { index = text.index(after: index) }
                continue
            }
            if character == "\"" {
                quoted.toggle()
            } else if !quoted, character == separator {
                pieces.append(text[start..<index])
                start = text.index(after: index)
            }
            index = text.index(after: index)
        }
        pieces.append(text[start...])
        return pieces
    }

    /// `text` with ASCII letters lower-cased and every other character kept: tokens are ASCII,
    /// and Unicode case mapping would change bytes no HTTP rule folds.
    private static func asciiLowercased(_ text: String) -> String {
        guard text.utf8.contains(where: { (0x41...0x5A).contains($0) }) else { return text }
        return String(decoding: text.utf8.map(HTTPHeaders.asciiLowercased), as: UTF8.self)
    }
}
