import Foundation

/// What ``LoggingTransport`` hides before anything is logged: header values and query parameter
/// values that carry secrets.
///
/// Redacted values become `<redacted>`; for `Authorization` and `Proxy-Authorization` the scheme
/// is kept (`Bearer <redacted>`) because it helps debugging and is not secret. Secret values seen
/// in a request's headers are also scrubbed from error descriptions logged for that request.
/// Headers that are not secret as a whole but can carry one are redacted in part: URLs in
/// `Location`, `Content-Location`, `Link`, `Refresh` and `Referer` (as ``redact(_:)-(URL?)``
/// does), cookie values in `Set-Cookie` (name and attributes kept), and tokens, nonces and
/// other parameters of `WWW-Authenticate`, `Proxy-Authenticate` and `Authentication-Info`
/// (scheme, `realm`, `scope`, `error` and similar kept).
///
/// ``headers`` is also the set of headers ``RedirectSafety`` keeps from crossing origins.
public struct Redaction: Sendable, Hashable {
    /// The replacement text.
    package static let placeholder = "<redacted>"

    /// Header names whose values are never logged, compared case-insensitively.
    public var headers: Set<String>
    /// Query parameter names whose values are never logged, compared case-insensitively.
    public var queryParameters: Set<String>

    /// The headers redacted by default: credentials and session cookies.
    public static let defaultHeaders: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token",
    ]
    /// The query parameters redacted by default: common token and key names.
    public static let defaultQueryParameters: Set<String> = [
        "access_token", "refresh_token", "id_token", "token", "api_key", "apikey", "client_secret",
        "password", "secret", "signature", "sig", "code",
    ]

    /// Creates a redaction policy. The defaults are always included; pass extra names to hide more.
    public init(extraHeaders: Set<String> = [], extraQueryParameters: Set<String> = []) {
        headers = Self.defaultHeaders.union(extraHeaders.map { $0.lowercased() })
        queryParameters = Self.defaultQueryParameters.union(extraQueryParameters.map { $0.lowercased() })
    }

    /// `headers` with every secret value replaced.
    package func redact(_ headers: HTTPHeaders) -> HTTPHeaders {
        HTTPHeaders(headers.map { field in (field.name, redactedValue(name: field.name, value: field.value)) })
    }

    /// The URL's text with every secret replaced: the whole userinfo of an authority
    /// (`https://<redacted>@host/`; a token is often sent as the user name alone, and a user name
    /// may be an e-mail address), and the values of secret parameters in the query and in the fragment (OAuth's implicit
    /// flow puts `access_token` there). Works on the text alone: setting `URLComponents` parts
    /// traps on characters such as `<`.
    public func redact(_ url: URL?) -> String {
        guard let url else { return "<no URL>" }
        var text = Self.redactingUserinfo(in: url.absoluteString, .parsed)
        for separator in ["?", "#"] {
            guard let start = text.firstIndex(of: Character(separator)) else { continue }
            let end = separator == "?" ? (text[start...].firstIndex(of: "#") ?? text.endIndex) : text.endIndex
            let parameters = text[text.index(after: start)..<end]
            text.replaceSubrange(text.index(after: start)..<end, with: redactingParameters(parameters))
        }
        return text
    }

    /// `text` with every occurrence of a secret value replaced: the values of secret headers in
    /// `headers`, `name=value` pairs of secret parameters (their names also matched when
    /// percent-encoded), and the userinfo of `scheme://userinfo@host` URLs (`user:password`, or a
    /// token as the user name alone).
    package func scrub(_ text: String, secretsFrom headers: HTTPHeaders = [:]) -> String {
        var text = text
        for field in headers where isSecretHeader(field.name) {
            for secret in secretParts(of: field.value) { text = text.replacingOccurrences(of: secret, with: Self.placeholder) }
        }
        for name in queryParameters {
            text = text.replacingOccurrences(
                of: "(?i)(\\b\(Self.encodingTolerantPattern(for: name))=)[^&#\\s\"')]+",
                with: "$1\(Self.placeholder)", options: .regularExpression)
        }
        // Up to the authority's last `@`, as URL parsers read it (a raw `@` in a password).
        return text.replacingOccurrences(
            of: "(://)[^/?#\\s]*[^/?#@\\s][^/?#\\s]*@", with: "$1\(Self.placeholder)@",
            options: .regularExpression)
    }

    private func redactingParameters(_ parameters: Substring) -> String {
        parameters.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, isSecretParameter(String(parts[0])) else { return String(pair) }
            return "\(parts[0])=\(Self.placeholder)"
        }.joined(separator: "&")
    }

    /// A pattern matching `name` with any of its characters percent-encoded (`access%5Ftoken`).
    private static func encodingTolerantPattern(for name: String) -> String {
        name.unicodeScalars.map { scalar -> String in
            let literal = NSRegularExpression.escapedPattern(for: String(scalar))
            guard scalar.isASCII else { return literal }
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "(?:\(literal)|%\(hex.count == 1 ? "0" + hex : hex))"
        }.joined()
    }

    /// Whether `name` (any case) is one of ``headers``.
    func isSecretHeader(_ name: String) -> Bool { headers.contains(name.lowercased()) }

    private func isSecretParameter(_ encodedName: String) -> Bool {
        queryParameters.contains((encodedName.removingPercentEncoding ?? encodedName).lowercased())
    }

    private func redactedValue(name: String, value: String) -> String {
        let lowered = name.lowercased()
        // Set-Cookie always loses its values, even when a caller took it out of `headers`.
        if lowered == "set-cookie" { return redactingSetCookie(value) }
        guard isSecretHeader(name) else { return redactingNonSecretHeader(lowered, value) }
        if lowered == "authorization" || lowered == "proxy-authorization",
            let space = value.firstIndex(of: " ")
        {
            return "\(value[..<space]) \(Self.placeholder)"
        }
        return Self.placeholder
    }

    /// The secret substrings of a header value: the whole value and, for `Scheme credentials`
    /// and cookie lists, each credential part (short parts are skipped to avoid scrubbing noise).
    func secretParts(of value: String) -> [String] {
        var parts = [value]
        if let space = value.firstIndex(of: " ") { parts.append(String(value[value.index(after: space)...])) }
        for cookie in value.split(separator: ";") {
            if let equals = cookie.firstIndex(of: "=") { parts.append(String(cookie[cookie.index(after: equals)...])) }
        }
        return parts.map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.count >= 4 }
            .sorted { $0.count > $1.count }
    }
}
