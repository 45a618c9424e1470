import Foundation

/// An HTTP proxy that ``PinningTransport`` reaches pinned hosts through, with a `CONNECT`
/// tunnel (RFC 9110 §9.3.6), and the hosts it is not used for (`NO_PROXY`).
///
/// Set it as ``PinningTransport/Configuration/proxy``, explicitly or from the environment
/// (``fromEnvironment(_:)``: nothing is read from the environment unless you ask). Through the
/// tunnel, TLS runs end to end with the pinned host: the proxy sees only the host name and port
/// of the `CONNECT` line, and the certificate name, the chain and the pins are checked against
/// the *origin* exactly as on a direct connection. A proxy that inspects TLS (terminates it and
/// presents a certificate of its own) therefore fails the pin check, by design, and the error
/// says so. Requests for unpinned hosts go to the inner transport, which follows its own proxy
/// settings.
///
/// ```swift
/// var configuration = PinningTransport.Configuration()
/// configuration.proxy = try ProxyConfiguration(url: "http://proxy.corp.example:3128",
///                                              noProxy: "localhost, .internal.example")
/// ```
public struct ProxyConfiguration: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The proxy's port when its URL names none: 1080, as in curl.
    package static let defaultPort = 1080

    /// The proxy's host (canonical form: lowercased, IPv6 without brackets).
    public let host: String
    /// The proxy's TCP port.
    public let port: Int
    /// The `NO_PROXY` text the bypass list was read from (see ``init(url:noProxy:)``).
    public let noProxy: String
    /// The user name and password from the URL, sent as `Proxy-Authorization: Basic`.
    let credentials: ProxyCredentials?
    let bypass: NoProxyList
    let canonicalHost: CanonicalHost

    /// Creates a proxy setting from the proxy's URL and a `NO_PROXY` list.
    ///
    /// - Parameters:
    ///   - url: `http://[user:password@]host[:port]`, or just `host[:port]` (as in `HTTPS_PROXY`);
    ///     the port defaults to 1080 as in curl. User name and password may be percent-encoded
    ///     (`%40` for `@`); they are sent to the proxy as `Proxy-Authorization: Basic` and never
    ///     appear in a description, event or error. Only `http` proxies are supported: the
    ///     connection to the proxy is plain TCP, and what runs through the tunnel is TLS with the
    ///     pinned host.
    ///   - noProxy: Hosts reached directly, with curl's rules: comma- or space-separated entries;
    ///     `*` for every host; `example.com` (or `.example.com`, `*.example.com`) for that name and
    ///     every name below it; `host:port` to match one port; IP literals and CIDR blocks
    ///     (`10.0.0.0/8`, `fd00::/8`). Names are compared as written in the URL, never resolved.
    ///     Unreadable entries match nothing.
    /// - Throws: ``PinningConfigurationError/malformedProxy(url:reason:)`` (the URL shown
    ///   without credentials).
    public init(url: String, noProxy: String = "") throws(PinningConfigurationError) {
        let parsed = try ProxyURL(url)
        host = parsed.host.name
        canonicalHost = parsed.host
        port = parsed.port
        credentials = parsed.credentials
        self.noProxy = noProxy
        bypass = NoProxyList(noProxy)
    }

    /// The proxy the environment asks for: `https_proxy` (or `HTTPS_PROXY`) with `no_proxy` (or
    /// `NO_PROXY`), read as curl reads them for `https` URLs; nil when neither proxy variable is
    /// set or both are empty. `HTTP_PROXY` is not read: pinned hosts are only reached over https.
    ///
    /// - Parameter environment: The variables to read; the process's environment by default.
    /// - Throws: ``PinningConfigurationError/malformedProxy(url:reason:)`` when the variable is
    ///   set but unusable (a malformed proxy must not silently mean "no proxy").
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(PinningConfigurationError) -> ProxyConfiguration?
    {
        func value(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0]?.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
        }
        guard let url = value("https_proxy", "HTTPS_PROXY") else { return nil }
        return try ProxyConfiguration(url: url, noProxy: value("no_proxy", "NO_PROXY") ?? "")
    }

    /// The proxy's URL with its credentials replaced by `<redacted>`, such as
    /// `http://<redacted>@proxy.corp.example:3128`: safe for logs and error messages.
    public var redactedURL: String {
        ProxyURL.format(host: canonicalHost, port: port, hasCredentials: credentials != nil)
    }

    /// The redacted URL and the bypass list.
    public var description: String {
        noProxy.isEmpty ? redactedURL : "\(redactedURL) (NO_PROXY: \(noProxy))"
    }

    /// Shows the redacted URL, never the credentials (`dump`, debuggers, string interpolation
    /// with `String(reflecting:)`).
    public var customMirror: Mirror {
        Mirror(self, children: ["url": redactedURL, "noProxy": noProxy], displayStyle: .struct)
    }

    /// Whether requests to `host:port` go through the tunnel (false when `NO_PROXY` lists them).
    func tunnels(to host: CanonicalHost, port: Int) -> Bool {
        !bypass.bypasses(host, port: port)
    }
}

/// The user name and password of a proxy URL, percent-decoded.
struct ProxyCredentials: Sendable, Hashable {
    let user: String
    let password: String

    /// The `Proxy-Authorization` value (RFC 7617): `Basic` and the base64 of `user:password` in UTF-8.
    var basicAuthorization: String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }
}
