/// Hiding the user information of URL text: one routine for every URL shown in a log, an event
/// or an error, so that a log line and a configuration error agree on where a password ends.
extension Redaction {
    /// How far a URL's authority is taken to reach when its user information is redacted.
    package enum AuthorityExtent: Sendable {
        /// Text of a URL that parsed (`URL.absoluteString`): the authority ends at the first `/`,
        /// `?` or `#` after the scheme (RFC 3986 §3.2), and its user information is everything
        /// before the authority's last `@` (a raw `@` in a password, as URL parsers read it).
        /// An `@` in the path or query, as in `https://h.example/a@b`, is left alone.
        case parsed
        /// Text that was rejected as a URL, or that may not mean what its author meant: a
        /// password pasted without percent-encoding puts its `/`, `?` or `#` where a parser sees
        /// the path (`redis://:Xy@9/kQ2v@cache:6379` parses with host `9`). Everything between
        /// the scheme and the text's last `@` is hidden. Without an `@`, a `user:password`
        /// reads as host and port, so what follows the host's colon is hidden unless it is a
        /// port number (an optional trailing `/` allowed).
        case rejected
    }

    /// `text` with the user information of its URL replaced by ``placeholder``, read as
    /// `extent` says. Works on the text alone: the text may not parse, and setting
    /// `URLComponents` parts traps on characters such as `<`.
    package static func redactingUserinfo(in text: String, _ extent: AuthorityExtent) -> String {
        let start = schemeDelimiter(in: Substring(text))?.upperBound ?? text.startIndex
        switch extent {
        case .parsed:
            let authorityEnd = text[start...].firstIndex { "/?#".contains($0) } ?? text.endIndex
            let authority = text[start..<authorityEnd]
            guard let at = authority.lastIndex(of: "@"), at > authority.startIndex else { return text }
            return String(text[..<start]) + placeholder + text[at...]
        case .rejected:
            // A scheme holds no '@', so the last one is never before `start`.
            if let at = text.lastIndex(of: "@") { return String(text[..<start]) + placeholder + text[at...] }
            let authority = text[start...]
            let hostEnd = authority.hasPrefix("[") ? authority.firstIndex(of: "]") ?? authority.endIndex : authority.startIndex
            guard let colon = authority[hostEnd...].firstIndex(of: ":") else { return text }
            var port = authority[authority.index(after: colon)...]
            if port.hasSuffix("/") { port = port.dropLast() }
            guard !port.allSatisfy({ ("0"..."9").contains($0) }) else { return text }
            return String(text[...colon]) + placeholder
        }
    }

    /// Where `text`'s `scheme://` ends, or nil when it has none. A scheme is only the RFC 3986
    /// token `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` (section 3.1): a `://` inside a
    /// password, as in `alice:pa://ss@proxy`, is not one, so the password is never echoed as a
    /// scheme. Parsers that show rejected text through ``redactingUserinfo(in:_:)`` use it too,
    /// so that they and the redaction agree on where the scheme ends.
    package static func schemeDelimiter(in text: Substring) -> Range<Substring.Index>? {
        guard let end = text.range(of: "://") else { return nil }
        let scheme = text[..<end.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return end
    }
}
