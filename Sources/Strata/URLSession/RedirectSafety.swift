/// What a transport that follows redirects protects: the secret headers that never leave the
/// origin they were sent to, and whether an `https` request may be redirected to `http`.
///
/// ``URLSessionTransport`` and `PinningTransport` take one each. Pass the same ``Redaction`` you
/// give ``LoggingTransport``, so a header you hide from logs also stays with its origin:
/// ```swift
/// let secrets = Redaction(extraHeaders: ["X-Tenant-Key"])
/// let transport = URLSessionTransport(requestTimeout: .seconds(30), redirectSafety: RedirectSafety(secrets: secrets))
/// ```
public struct RedirectSafety: Sendable, Hashable {
    /// Every header this redaction treats as secret (its defaults, `Authorization`, `Cookie`,
    /// `Proxy-Authorization`, `X-API-Key`, `X-Auth-Token`, plus your extra names) is removed from
    /// a follow-up request whose target is another origin (scheme, host or port). Other headers
    /// travel with the request.
    public var secrets: Redaction
    /// Follow a redirect from `https` to `http`. Default `false`: such a redirect would send the
    /// request (its headers and body) unencrypted, and fails with
    /// ``TransportError/Kind/invalidRequest`` instead.
    public var allowsHTTPSToHTTP: Bool

    /// Creates the rules; the defaults drop every default secret header across origins and
    /// refuse https-to-http redirects.
    public init(secrets: Redaction = Redaction(), allowsHTTPSToHTTP: Bool = false) {
        self.secrets = secrets
        self.allowsHTTPSToHTTP = allowsHTTPSToHTTP
    }
}
