/// Which HTTP versions ``PinningTransport`` offers a pinned server during the TLS handshake
/// (ALPN, RFC 7301). The server's choice decides the protocol of each connection; the pin and
/// host checks are the same for both and happen before the first byte of either.
public enum HTTPVersionPolicy: Sendable, Hashable {
    /// Offers `h2` and `http/1.1`: HTTP/2 when the server selects it (one connection per host
    /// carries concurrent requests as streams), HTTP/1.1 otherwise. The default.
    case preferHTTP2
    /// Offers only `http/1.1`: every pinned request travels over HTTP/1.1 keep-alive connections.
    case http1Only
    /// Offers only `h2`, for servers that require HTTP/2 (such as Apple's push service): a server
    /// that does not select it fails the request with ``/Strata/TransportError/Kind/tls``.
    case http2Only

    /// The ALPN protocol names offered, most preferred first.
    var alpnProtocols: [String] {
        switch self {
        case .preferHTTP2: ["h2", "http/1.1"]
        case .http1Only: ["http/1.1"]
        case .http2Only: ["h2"]
        }
    }
}
