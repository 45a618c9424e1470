import Strata

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
            .malformedProxy(url: Redaction.redactingUserinfo(in: text, .rejected), reason: reason)
        }
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        guard !rest.isEmpty else { throw reject("it is empty") }
        // Where the scheme ends as the redaction above reads it: a `://` inside a password is no scheme.
        if let schemeEnd = Redaction.schemeDelimiter(in: rest) {
            let scheme = rest[..<schemeEnd.lowerBound].lowercased()
            guard scheme == "http" else {
                throw reject(
                    scheme == "https"
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
                let password = (parts.count > 1 ? String(parts[1]) : "").removingPercentEncoding
            else {
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

    private static func port(
        _ text: Substring,
        _ reject: (String) -> PinningConfigurationError
    ) throws(PinningConfigurationError) -> Int {
        let isDigits = !text.isEmpty && text.allSatisfy(\.isASCIIDigit)
        guard isDigits, let port = Int(text), (1...65535).contains(port) else {
            // Echoed only when it is digits: without an '@', `alice:password` reads as host:port.
            throw reject(
                isDigits
                    ? "the port '\(text.prefix(10))' is not a number from 1 to 65535"
                    : "the port is not a number from 1 to 65535")
        }
        return port
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
