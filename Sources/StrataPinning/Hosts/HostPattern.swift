/// A `pinnedDomains` key: which hosts a set of pins applies to (OkHttp's pattern syntax).
///
/// - `api.example.com` matches that host only.
/// - `*.example.com` matches exactly one extra label: `api.example.com`, not `example.com` and
///   not `a.b.example.com`.
/// - `**.example.com` matches `example.com` and every host below it at any depth.
///
/// Matching ignores case and one trailing dot (`API.Example.COM.` is `api.example.com`), and
/// compares IP addresses in canonical form (`127.1` is `127.0.0.1`; wildcards never match an IP).
/// Malformed patterns (`*` anywhere but as the whole leftmost label, empty labels, characters
/// that cannot appear in a host name) are rejected when the pattern is created, and so is every
/// pattern that could never equal a URL's host: one with a port (`localhost:8443`), a scheme, a
/// path, a user, URL brackets (`[::1]`), or a `:` outside a valid IPv6 literal. Such a pattern
/// would match no request, and the host it meant would travel unpinned; the error names the
/// spelling to use instead (pins apply to a host on every port).
struct HostPattern: Sendable, Hashable, CustomStringConvertible {
    /// How the pattern's leftmost label matches.
    enum Kind: Hashable {
        case exact
        case oneLabel
        case anyDepth
    }

    /// RFC 1035 §2.3.4: a name is at most 253 characters in text form, a label at most 63.
    static let maximumHostLength = 253
    static let maximumLabelLength = 63

    let kind: Kind
    /// The normalized host (exact) or the suffix after `*.`/`**.` (wildcards).
    let base: String

    /// Parses a host pattern.
    ///
    /// - Throws: ``PinningConfigurationError/malformedHostPattern(_:reason:)`` saying what is wrong.
    init(_ pattern: String) throws(PinningConfigurationError) {
        func reject(_ reason: String) -> PinningConfigurationError { .malformedHostPattern(pattern, reason: reason) }
        if let problem = HostPatternSpelling.problem(in: pattern) { throw reject(problem) }
        let normalized = Self.normalize(pattern)
        guard !normalized.isEmpty else { throw reject("it is empty") }
        guard normalized.utf8.count <= Self.maximumHostLength else {
            throw reject("longer than \(Self.maximumHostLength) characters")
        }
        var labels = normalized.split(separator: ".", omittingEmptySubsequences: false)
        switch labels.first {
        case "*": kind = .oneLabel
        case "**": kind = .anyDepth
        default: kind = .exact
        }
        if kind != .exact {
            labels.removeFirst()
            guard !labels.isEmpty else { throw reject("a wildcard needs a domain after it, as in '*.example.com'") }
        }
        for label in labels {
            guard !label.isEmpty else { throw reject("it has an empty label ('..' or a leading dot)") }
            guard !label.contains("*") else {
                throw reject("'*' is allowed only as the whole leftmost label ('*.' or '**.')")
            }
            guard label.utf8.count <= Self.maximumLabelLength else {
                throw reject("the label '\(label)' is longer than \(Self.maximumLabelLength) characters")
            }
            guard label.unicodeScalars.allSatisfy(Self.isHostCharacter) else {
                throw reject(
                    "the label '\(label)' has a character not allowed in a host name "
                        + "(write internationalized names in their xn-- form)")
            }
        }
        let joined = labels.joined(separator: ".")
        // An IP pattern in any spelling (`0:0:0:0:0:0:0:1`) is stored as the canonical host is.
        if kind == .exact, let address = try? CanonicalHost(joined), address.isIPAddress {
            base = address.name
        } else {
            base = joined
        }
    }

    /// Whether `host` (as in `URL.host`) is covered by this pattern: the host is first put in
    /// ``CanonicalHost`` form, so a host that has no such form (a NUL or any other byte that
    /// cannot appear in a host name) matches nothing, and `127.1` matches `127.0.0.1`.
    func matches(_ host: String) -> Bool {
        guard let canonical = try? CanonicalHost(host) else { return false }
        return matches(canonical)
    }

    /// Whether the canonical `host` is covered. IP addresses match exact patterns only.
    func matches(_ host: CanonicalHost) -> Bool {
        if host.isIPAddress { return kind == .exact && host.name == base }
        let host = host.name
        switch kind {
        case .exact:
            return host == base
        case .oneLabel:
            guard host.hasSuffix("." + base) else { return false }
            let extra = host.dropLast(base.count + 1)
            return !extra.isEmpty && !extra.contains(".")
        case .anyDepth:
            return host == base || host.hasSuffix("." + base)
        }
    }

    /// The pattern in normalized form, for example `*.example.com`.
    var description: String {
        switch kind {
        case .exact: base
        case .oneLabel: "*." + base
        case .anyDepth: "**." + base
        }
    }

    /// Lowercases (ASCII) and drops one trailing dot.
    static func normalize(_ host: String) -> String {
        var text = Substring(host.lowercased())
        if text.hasSuffix(".") { text = text.dropLast() }
        return String(text)
    }

    /// Letters, digits, hyphen, underscore (seen in real service names) and ':' for IPv6 literals.
    private static func isHostCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "0"..."9", "-", "_", ":": true
        default: false
        }
    }
}
