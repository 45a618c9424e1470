/// A proxy URL taken apart: `[http://][user[:password]@]host[:port][/]`. Pure, so every
/// spelling an environment variable may hold is tested without a network.
struct ProxyURL {
    let host: CanonicalHost
    let port: Int
    let credentials: ProxyCredentials?

    /// Parses `text`.
    ///
    /// - Throws: ``PinningConfigurationError/malformedProxy(url:reason:)`` naming the problem,
    ///   with the URL shown without its credentials.
    init(_ text: String) throws(PinningConfigurationError) {
        func reject(_ reason: String) -> PinningConfigurationError {
            .malformedProxy(url: Self.redacting(text), reason: reason)
        }
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        guard !rest.isEmpty else { throw reject("it is empty") }
        if let schemeEnd = Self.schemeEnd(in: rest) {
            let scheme = rest[..<schemeEnd.lowerBound].lowercased()
            guard scheme == "http" else {
                throw reject(scheme == "https"
                    ? "a TLS connection to the proxy itself (https://) is not supported; use the proxy's http:// address "
                        + "(the tunnel through it still carries TLS with the pinned host, end to end)"
                    : "the scheme '\(scheme)' is not supported; only http:// proxies (HTTP CONNECT) are")
            }
            rest = rest[schemeEnd.upperBound...]
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains(where: { "/?#".contains($0) }) else {
            throw reject("a proxy URL has no path, query or fragment")
        }
        var credentials: ProxyCredentials?
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            let parts = userInfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard let user = String(parts[0]).removingPercentEncoding,
                  let password = (parts.count > 1 ? String(parts[1]) : "").removingPercentEncoding else {
                throw reject("its user name or password is not valid percent-encoding")
            }
            guard !user.isEmpty else { throw reject("it has credentials without a user name") }
            credentials = ProxyCredentials(user: user, password: password)
        }
        var hostText = rest
        var port = ProxyConfiguration.defaultPort
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw reject("an IPv6 address is missing its ']'") }
            hostText = rest[...close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw reject("unexpected text after the IPv6 address") }
                port = try Self.port(after.dropFirst(), reject)
            }
        } else if let colon = rest.lastIndex(of: ":") {
            guard !rest[..<colon].contains(":") else { throw reject("an IPv6 address must be written in brackets, as [::1]") }
            hostText = rest[..<colon]
            port = try Self.port(rest[rest.index(after: colon)...], reject)
        }
        do {
            host = try CanonicalHost(String(hostText))
        } catch {
            throw reject(error.description)
        }
        self.port = port
        self.credentials = credentials
    }

    /// `http://host:port`, with `<redacted>@` when the URL had credentials.
    static func format(host: CanonicalHost, port: Int, hasCredentials: Bool) -> String {
        let name = host.name.contains(":") ? "[\(host.name)]" : host.name
        return "http://\(hasCredentials ? "<redacted>@" : "")\(name):\(port)"
    }

    /// `text` with everything between the scheme and the last `@` replaced, so a malformed URL
    /// can be shown in an error without its credentials. Without an `@`, a `user:password`
    /// would read as host and port, so whatever follows the host's colon is replaced unless it
    /// is a port number.
    static func redacting(_ text: String) -> String {
        let start = schemeEnd(in: Substring(text))?.upperBound ?? text.startIndex
        if let at = text.lastIndex(of: "@") {
            // A scheme token holds no '@', so `at` is never before `start`.
            return text[..<start] + "<redacted>" + text[at...]
        }
        let authority = text[start...]
        let hostEnd = authority.hasPrefix("[") ? authority.firstIndex(of: "]") ?? authority.endIndex : authority.startIndex
        guard let colon = authority[hostEnd...].firstIndex(of: ":") else { return text }
        var port = authority[authority.index(after: colon)...]
        if port.hasSuffix("/") { port = port.dropLast() }
        guard !port.allSatisfy(\.isASCIIDigit) else { return text }
        return text[...colon] + "<redacted>"
    }

    /// Where `text`'s `scheme://` ends, or nil when it has none. A scheme is only the RFC 3986
    /// token `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` (section 3.1): a `://` inside a password,
    /// as in `alice:pa://ss@proxy`, is not one, so the password is never echoed as a scheme.
    private static func schemeEnd(in text: Substring) -> Range<Substring.Index>? {
        guard let end = text.range(of: "://") else { return nil }
        let scheme = text[..<end.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else { return nil }
        return end
    }

    private static func port(_ text: Substring,
                             _ reject: (String) -> PinningConfigurationError) throws(PinningConfigurationError) -> Int {
        let isDigits = !text.isEmpty && text.allSatisfy(\.isASCIIDigit)
        guard isDigits, let port = Int(text), (1...65535).contains(port) else {
            // Echoed only when it is digits: without an '@', `alice:password` reads as host:port.
            throw reject(isDigits ? "the port '\(text.prefix(10))' is not a number from 1 to 65535"
                                  : "the port is not a number from 1 to 65535")
        }
        return port
    }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
