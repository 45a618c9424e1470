import Foundation

/// Partial redaction of header values that are not secret as a whole but can carry secrets.
extension Redaction {
    /// Headers whose value is, or holds, URLs (RFC 9110 §10.2.2, §8.7; RFC 8288; `Refresh`).
    static let urlHeaders: Set<String> = ["location", "content-location", "link", "refresh", "referer"]
    /// Authentication challenge and info headers (RFC 9110 §11.6, RFC 7615).
    static let challengeHeaders: Set<String> = [
        "www-authenticate", "proxy-authenticate", "authentication-info", "proxy-authentication-info",
    ]
    /// Challenge parameters that describe rather than authenticate; every other value is hidden.
    static let harmlessChallengeParameters: Set<String> = [
        "realm", "scope", "error", "error_description", "error_uri", "charset", "algorithm", "qop", "stale",
        "userhash", "domain", "rspauth-qop",
    ]

    func redactingNonSecretHeader(_ lowercasedName: String, _ value: String) -> String {
        if Self.urlHeaders.contains(lowercasedName) { return redactingURLs(in: value) }
        if Self.challengeHeaders.contains(lowercasedName) { return redactingChallenge(value) }
        return value
    }

    /// Each URL in `value` (anything with `://`, or the whole value, up to a delimiter) redacted
    /// like ``redact(_:)-(URL?)``.
    func redactingURLs(in value: String) -> String {
        let pattern = "[A-Za-z][A-Za-z0-9+.-]*:[^\\s<>\"',;]+"
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return Self.placeholder }
        var result = value
        let range = NSRange(value.startIndex..., in: value)
        for match in expression.matches(in: value, range: range).reversed() {
            guard let swiftRange = Range(match.range, in: result) else { continue }
            let text = String(result[swiftRange])
            // "url=https://..." in Refresh: the scheme-like prefix is a parameter name.
            let redacted = URL(string: text).map { redact($0) } ?? scrub(text)
            result.replaceSubrange(swiftRange, with: redacted)
        }
        return result == value ? scrub(value) : result
    }

    /// `name=value; attributes` with the value hidden.
    func redactingSetCookie(_ value: String) -> String {
        var parts = value.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        guard let first = parts.first, let equals = first.firstIndex(of: "=") else { return Self.placeholder }
        parts[0] = first[...equals] + Self.placeholder
        return parts.joined(separator: ";")
    }

    /// `Scheme token68` or `Scheme param=value, ...` with the token68 and every parameter not
    /// known to be harmless hidden; the scheme names and harmless parameters stay.
    func redactingChallenge(_ value: String) -> String {
        value.split(separator: ",", omittingEmptySubsequences: false).map { item -> String in
            var piece = Substring(item)
            var prefix = ""
            let leading = piece.prefix { $0 == " " }
            piece = piece.dropFirst(leading.count)
            prefix += leading
            // A new challenge starts with its scheme: keep it, then look at what follows.
            if let space = piece.firstIndex(of: " "), !piece[..<space].contains("=") {
                prefix += piece[...space]
                piece = piece[piece.index(after: space)...]
            } else if !piece.contains("=") {
                return prefix + piece // a bare scheme
            }
            guard let equals = piece.firstIndex(of: "=") else { return prefix + Self.placeholder } // token68
            let name = piece[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            // token68 ends in '=' padding: "YWJj=" has nothing after its '='.
            let rest = piece[piece.index(after: equals)...]
            if rest.isEmpty || rest.allSatisfy({ $0 == "=" }) { return prefix + Self.placeholder }
            if Self.harmlessChallengeParameters.contains(name) { return prefix + piece }
            return prefix + piece[...equals] + Self.placeholder
        }.joined(separator: ",")
    }
}
