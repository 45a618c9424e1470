import Strata

extension PinningTransport {
    /// Timeouts, pool size and limits for the connections ``PinningTransport`` opens to pinned
    /// hosts. Every value has a default that suits an ordinary JSON API.
    public struct Configuration: Sendable {
        /// How long resolving the host name and opening the TCP connection may take together
        /// (through a ``proxy``: reaching the proxy and its answer to `CONNECT`). Default 10 s.
        ///
        /// Resolution runs on a helper thread and is abandoned at this timeout (or the request
        /// deadline, if sooner); the system resolver finishes in the background.
        public var connectTimeout: Duration
        /// How long a connection attempt to one of a host's addresses runs alone before the
        /// next address is tried beside it (RFC 8305 "Connection Attempt Delay"). Default 250 ms;
        /// values under 10 ms count as 10 ms, as the RFC requires.
        ///
        /// Every address the name resolves to is tried within ``connectTimeout``: the families
        /// alternate (IPv6 first when the system prefers it), an attempt that fails starts the
        /// next at once, and the first connection wins; the others are closed.
        public var connectionAttemptDelay: Duration
        /// How long the TLS handshake may take. Default 10 s.
        public var handshakeTimeout: Duration
        /// The longest wait for any progress while a request is written or its response read.
        /// Default 30 s.
        public var idleReadTimeout: Duration
        /// How long one request may take in total, from the moment it is sent: waiting for a free
        /// connection (at ``maxConnectionsPerHost``), connect, handshake, any retry on a fresh
        /// connection and the whole response included; past it the request throws
        /// `TransportError` of kind `timedOut`. Each redirect hop gets its own. Default 60 s.
        public var requestTimeout: Duration
        /// The most connections open at once to one host and port; further requests wait, first
        /// come first served. Default 8.
        public var maxConnectionsPerHost: Int
        /// How long an unused keep-alive connection is kept; after that it is closed (and a
        /// request that finds it opens a new one). Default 30 s, below common server keep-alive
        /// timeouts so the client usually closes first.
        public var idleConnectionTimeout: Duration
        /// Limits on response heads and bodies, for HTTP/1.1 and HTTP/2 alike (over HTTP/2 the
        /// header limit counts each field as RFC 9113 §6.5.2 does: name, value and 32 octets).
        /// `maxResponseBodyBytes` bounds a buffered body as received and again once decoded.
        public var limits: HTTPLimits
        /// The most redirects followed for one request. Default 10.
        public var maxRedirects: Int
        /// Which headers a redirect to another origin drops (every secret header of its
        /// `Redaction`) and whether https may redirect to http (no, by default). An `http://`
        /// target on a pinned host is refused whatever this says.
        public var redirectSafety: RedirectSafety
        /// Accept a response body that ends only at the connection's close when the server
        /// closes without a TLS close_notify. Default `false`: such an end cannot be told from an
        /// attacker cutting the body, so it fails with `connectionLost`. Set it only for a server
        /// known to close this way; bodies framed by `Content-Length` or chunks are never affected.
        public var acceptsBodyEndWithoutCloseNotify: Bool
        /// Which HTTP versions are offered to pinned servers. Default ``HTTPVersionPolicy/preferHTTP2``.
        ///
        /// Over HTTP/2, one connection per host carries concurrent requests as streams (more open,
        /// up to ``maxConnectionsPerHost``, only when the server's concurrent-stream limit is
        /// reached); timeouts and ``limits`` apply per request as for HTTP/1.1.
        public var httpVersion: HTTPVersionPolicy
        /// How long an HTTP/2 connection carrying requests may receive nothing before it is
        /// checked with a PING; when the PING goes unanswered for as long again, the connection
        /// is closed and its requests fail with ``/Strata/TransportError/Kind/connectionLost`` (idempotent
        /// ones that had no response yet are sent again on a new connection). Default 10 s.
        public var http2PingInterval: Duration
        /// The HTTP proxy pinned hosts are reached through, with a `CONNECT` tunnel; nil (the
        /// default) connects directly. Nothing is read from the environment unless you ask:
        /// `configuration.proxy = try ProxyConfiguration.fromEnvironment()` reads `HTTPS_PROXY`
        /// and `NO_PROXY`. TLS, the host name check and the pins run end to end with the pinned
        /// host through the tunnel; a proxy that inspects TLS fails the pin check, by design.
        public var proxy: ProxyConfiguration?
        /// Client certificates (mutual TLS) by `pinnedDomains` pattern: the identity of the most
        /// specific pattern that matches a host is presented when its server asks for one.
        /// Every key must also be a `pinnedDomains` key (a configuration error otherwise). Default: none.
        public var clientIdentities: [String: ClientIdentity]
        /// Which compressed responses are asked for and decoded, and the limits on decoding them.
        /// Default: every coding this build supports, a 200:1 expansion guard above 1 MiB (see
        /// ``ContentDecoding``); ``ContentDecoding/disabled`` hands every body over as sent.
        public var contentDecoding: ContentDecoding

        /// Creates a configuration; every parameter defaults to the documented default. Any
        /// duration may be as large as `.seconds(Int64.max)` (in effect, no limit).
        public init(
            connectTimeout: Duration = .seconds(10), handshakeTimeout: Duration = .seconds(10),
            idleReadTimeout: Duration = .seconds(30), requestTimeout: Duration = .seconds(60),
            maxConnectionsPerHost: Int = 8, idleConnectionTimeout: Duration = .seconds(30),
            limits: HTTPLimits = .default, maxRedirects: Int = 10,
            redirectSafety: RedirectSafety = RedirectSafety(), acceptsBodyEndWithoutCloseNotify: Bool = false,
            httpVersion: HTTPVersionPolicy = .preferHTTP2, http2PingInterval: Duration = .seconds(10),
            connectionAttemptDelay: Duration = .milliseconds(250), proxy: ProxyConfiguration? = nil,
            clientIdentities: [String: ClientIdentity] = [:], contentDecoding: ContentDecoding = ContentDecoding()
        ) {
            self.connectTimeout = connectTimeout
            self.handshakeTimeout = handshakeTimeout
            self.idleReadTimeout = idleReadTimeout
            self.requestTimeout = requestTimeout
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.idleConnectionTimeout = idleConnectionTimeout
            self.limits = limits
            self.maxRedirects = maxRedirects
            self.redirectSafety = redirectSafety
            self.acceptsBodyEndWithoutCloseNotify = acceptsBodyEndWithoutCloseNotify
            self.httpVersion = httpVersion
            self.http2PingInterval = http2PingInterval
            self.connectionAttemptDelay = connectionAttemptDelay
            self.proxy = proxy
            self.clientIdentities = clientIdentities
            self.contentDecoding = contentDecoding
        }
    }
}
