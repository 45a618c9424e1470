import Foundation

/// What ``LoggingTransport`` hides before anything is logged: header values and query parameter
/// values that carry secrets.
///
/// Redacted values become `<redacted>`; for `Authorization` and `Proxy-Authorization` the scheme
/// is kept (`Bearer <redacted>`) because it helps debugging and is not secret. Secret values seen
/// in a request's headers are also scrubbed from error descriptions logged for that request.
public struct Redaction: Sendable, Hashable {
    /// The replacement text.
    public static let placeholder = "<redacted>"

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
    public func redact(_ headers: HTTPHeaders) -> HTTPHeaders {
        HTTPHeaders(headers.map { field in (field.name, redactedValue(name: field.name, value: field.value)) })
    }

    /// The URL's text with secret query parameter values replaced. Works on the text alone
    /// (setting `URLComponents` parts traps on characters such as `<`).
    public func redact(_ url: URL?) -> String {
        guard let url else { return "<no URL>" }
        let text = url.absoluteString
        guard let questionMark = text.firstIndex(of: "?") else { return text }
        let fragmentStart = text[questionMark...].firstIndex(of: "#") ?? text.endIndex
        let query = text[text.index(after: questionMark)..<fragmentStart]
        let redacted = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, isSecretParameter(String(parts[0])) else { return String(pair) }
            return "\(parts[0])=\(Self.placeholder)"
        }.joined(separator: "&")
        return text[...questionMark] + redacted + text[fragmentStart...]
    }

    /// `text` with every occurrence of a secret value replaced: the values of secret headers in
    /// `headers`, and `name=value` pairs of secret query parameters.
    public func scrub(_ text: String, secretsFrom headers: HTTPHeaders = [:]) -> String {
        var text = text
        for field in headers where isSecretHeader(field.name) {
            for secret in secretParts(of: field.value) { text = text.replacingOccurrences(of: secret, with: Self.placeholder) }
        }
        for name in queryParameters {
            text = text.replacingOccurrences(of: "(?i)(\\b\(NSRegularExpression.escapedPattern(for: name))=)[^&#\\s\"')]+",
                                             with: "$1\(Self.placeholder)", options: .regularExpression)
        }
        return text
    }

    private func isSecretHeader(_ name: String) -> Bool { headers.contains(name.lowercased()) }

    private func isSecretParameter(_ encodedName: String) -> Bool {
        queryParameters.contains((encodedName.removingPercentEncoding ?? encodedName).lowercased())
    }

    private func redactedValue(name: String, value: String) -> String {
        guard isSecretHeader(name) else { return value }
        let lowered = name.lowercased()
        if lowered == "authorization" || lowered == "proxy-authorization",
           let space = value.firstIndex(of: " ") {
            return "\(value[..<space]) \(Self.placeholder)"
        }
        return Self.placeholder
    }

    /// The secret substrings of a header value: the whole value and, for `Scheme credentials`
    /// and cookie lists, each credential part (short parts are skipped to avoid scrubbing noise).
    private func secretParts(of value: String) -> [String] {
        var parts = [value]
        if let space = value.firstIndex(of: " ") { parts.append(String(value[value.index(after: space)...])) }
        for cookie in value.split(separator: ";") {
            if let equals = cookie.firstIndex(of: "=") { parts.append(String(cookie[cookie.index(after: equals)...])) }
        }
        return parts.map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.count >= 4 }
            .sorted { $0.count > $1.count }
    }
}
