#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataConnect

/// The terminal transport for pinned hosts: requests to hosts matched by `pinnedDomains` travel
/// over its own TLS connections (system OpenSSL), HTTP/2 (system nghttp2) or HTTP/1.1 as each
/// server selects, each verified before the first byte of either protocol is written; every
/// other request goes to `inner` untouched.
///
/// Use it where `URLSessionTransport` would be, when some hosts must be pinned: on Linux
/// URLSession cannot pin (no server-trust callback, no way to add a CA), and checking pins on a
/// separate probe connection is not pinning. For a pinned host, each new connection:
/// 1. negotiates TLS 1.2 or newer, with SNI and ALPN (`h2` and `http/1.1` by default, see
///    ``Configuration/httpVersion``);
/// 2. has OpenSSL verify the chain against `trustRoots` and the host name;
/// 3. runs the host's evaluator on OpenSSL's *verified* chain (never the list the server sent);
/// 4. only then carries the request. Session resumption is off, so every connection is checked.
///
/// Verified connections are kept alive and reused (``Configuration/maxConnectionsPerHost`` per
/// host, closed after ``Configuration/idleConnectionTimeout`` unused). Over HTTP/2, one
/// connection per host carries concurrent requests as streams, up to the server's
/// concurrent-stream limit. An idempotent request that fails on a reused connection before any
/// response byte (the server had closed it) is sent once more on a fresh connection, and so is
/// any request an HTTP/2 server provably did not process (GOAWAY, REFUSED_STREAM). Blocking
/// socket and TLS work never runs on Swift's cooperative pool; writes never raise SIGPIPE and
/// the process's signal handlers are left alone.
///
/// Rules:
/// - Every hop's host is canonicalized once (lowercase, no trailing dot, IP literals in their
///   one standard form) and that one value is matched, pooled, sent as SNI, verified and
///   resolved. A host that has no canonical form (a `%00` or any byte outside letters, digits,
///   `-`, `_`, `.`; a malformed IP literal) is refused, pinned or not, before any I/O.
/// - An `http://` URL for a pinned host is refused (``/Strata/TransportError/Kind/invalidRequest``):
///   traffic for a pinned host never travels in cleartext. Unpinned `http://` goes to `inner`.
/// - Redirects are followed here, hop by hop, by `RedirectPolicy` (every secret header of
///   ``Configuration/redirectSafety`` dropped across origins, https never followed to http unless
///   allowed, 307/308 keep the body, 303 becomes `GET`, at most ``Configuration/maxRedirects``):
///   every target is matched against `pinnedDomains` again, so an unpinned host that redirects
///   to a pinned one cannot lead the request around the pins. A `URLSessionTransport` anywhere
///   in `inner` returns redirects to this transport whatever its own `maxRedirects`; an `inner`
///   of your own that follows redirects must not, or the redirects it follows are not pinned.
/// - A refused certificate throws `TransportError` of kind ``/Strata/TransportError/Kind/tls`` whose
///   `underlying` is the ``ServerTrustError`` (see `TransportError.serverTrustError`) and whose
///   message is its description (for a pin mismatch, the chain's pins ready to copy). `tls` is not
///   transient: `RetryTransport` never retries it.
/// - A malformed `pinnedDomains` key or unusable `trustRoots` makes every `send` throw the
///   ``PinningConfigurationError`` (fail closed, nothing is sent anywhere); use
///   ``validated(inner:pinnedDomains:trustRoots:configuration:)`` to get it at startup.
/// - A request's `RequestDeadline` (an endpoint's `timeout`), when earlier than
///   ``Configuration/requestTimeout``, bounds it, redirects included.
/// - A pinned request without `Accept-Encoding` offers the codings of
///   ``Configuration/contentDecoding`` and gets the response decoded as its body streams, without
///   `Content-Encoding` and `Content-Length`; one that sets its own gets the server's bytes (see
///   ``ContentDecoding``). Without a `User-Agent` it sends `Strata/<version>`. Buffered limits count
///   decoded bytes; a `ResponseBodyLimit` replaces ``HTTPLimits/maxResponseBodyBytes`` for one call.
/// - What it does (connections opened and reused, trust checks, redirects) is reported as
///   ``PinningEvent``s through `TransportEvents` to the observers above it.
/// - The client certificates it presents are reported to an `ETagTransport` above
///   (``cacheIdentity(for:)``), so a store shared by stacks with different certificates never
///   answers one with another's body.
///
/// ```swift
/// let transport = PinningTransport(
///     pinnedDomains: ["api.example.com": try PublicKeyPinningEvaluator(pins: [current, backup])],
///     trustRoots: .system)
/// let response = try await transport.send(URLRequest(url: URL(string: "https://api.example.com/me")!))
/// ```
/// Copies share one connection pool; connections close when the last copy goes away.
public struct PinningTransport: Transport {
    struct Engine: Sendable {
        let domains: PinnedDomains
        let client: PinnedClient
        /// The client identities by host pattern, also in `client`'s settings.
        let identities: ClientIdentities
    }

    /// Carries the requests for hosts that are not pinned.
    public let inner: any Transport
    let engine: Result<Engine, PinningConfigurationError>
    let maxRedirects: Int
    private let redirectSafety: RedirectSafety
    private let contentDecoding: ContentDecoding
    /// What `contentDecoding` offers each request.
    private let contentOffer: ContentNegotiation.Offer
    /// The buffered body limit of the configuration (`limits.maxResponseBodyBytes`).
    private let maxResponseBodyBytes: Int

    /// Creates a transport that pins the hosts matched by `pinnedDomains`.
    ///
    /// - Parameters:
    ///   - inner: Carries requests for unpinned hosts; it should return redirects rather than
    ///     follow them (see the type's rules). Default: a new `URLSessionTransport` that follows none.
    ///   - pinnedDomains: Host patterns (`api.example.com`, `*.example.com` for one extra label,
    ///     `**.example.com` for any depth including the apex) and the evaluator each host's
    ///     verified chain must pass.
    ///   - trustRoots: The trust anchors OpenSSL verifies chains against. Default: the system bundle.
    ///   - configuration: Timeouts, pool size and response limits.
    /// Never throws: a configuration error is reported by every ``send(_:)`` instead (fail closed).
    public init(
        inner: any Transport = PinningTransport.defaultInner(), pinnedDomains: [String: any ServerTrustEvaluator],
        trustRoots: TrustRoots = .system, configuration: Configuration = Configuration()
    ) {
        self.init(
            inner: inner, pinnedDomains: pinnedDomains, trustRoots: trustRoots, configuration: configuration,
            clock: ContinuousClock())
    }

    /// Creates a transport like ``init(inner:pinnedDomains:trustRoots:configuration:)``,
    /// but reports a malformed host pattern or unusable trust roots now.
    ///
    /// - Throws: ``PinningConfigurationError``.
    public static func validated(
        inner: any Transport = PinningTransport.defaultInner(),
        pinnedDomains: [String: any ServerTrustEvaluator],
        trustRoots: TrustRoots = .system, configuration: Configuration = Configuration()
    )
        throws(PinningConfigurationError) -> PinningTransport
    {
        let transport = PinningTransport(
            inner: inner, pinnedDomains: pinnedDomains, trustRoots: trustRoots,
            configuration: configuration)
        if let error = transport.configurationError { throw error }
        return transport
    }

    /// The designated initializer, with the clock the pool's idle expiry is measured on (tests
    /// pass a `TestClock`), the connection limit the pool counts against and the name resolver
    /// (tests inject their own). Deadlines and socket timeouts always run in real time.
    init(
        inner: any Transport, pinnedDomains: [String: any ServerTrustEvaluator], trustRoots: TrustRoots,
        configuration: Configuration, clock: some Clock<Duration>, threads: ConnectionThreadLimit = .processWide,
        resolver: any HostNameResolver = SystemHostNameResolver()
    ) {
        self.inner = inner
        self.maxRedirects = configuration.maxRedirects
        self.redirectSafety = configuration.redirectSafety
        contentDecoding = configuration.contentDecoding
        contentOffer = ContentNegotiation.Offer(configuration.contentDecoding)
        maxResponseBodyBytes = configuration.limits.maxResponseBodyBytes
        engine = Result { () throws(PinningConfigurationError) -> Engine in
            let domains = try PinnedDomains(pinnedDomains)
            try domains.validate(for: trustRoots)
            let identities = try ClientIdentities(configuration.clientIdentities, pinned: domains)
            let context = try TLSClientContext(roots: trustRoots, protocols: configuration.httpVersion.alpnProtocols)
            var settings = ConnectionSettings(
                context: context,
                timeouts: TLSStream.Timeouts(
                    connect: configuration.connectTimeout,
                    handshake: configuration.handshakeTimeout,
                    idle: configuration.idleReadTimeout),
                limits: configuration.limits,
                acceptsBodyEndWithoutCloseNotify: configuration.acceptsBodyEndWithoutCloseNotify, threads: threads,
                clock: ErasedClock(clock))
            settings.connector = OriginConnector(
                resolver: resolver, attemptDelay: configuration.connectionAttemptDelay,
                proxy: configuration.proxy, limits: configuration.limits)
            settings.identities = identities
            return Engine(
                domains: domains, client: PinnedClient(settings: settings, configuration: configuration),
                identities: identities)
        }
    }

    /// Why this transport refuses every request, or `nil` when its configuration is usable.
    public var configurationError: PinningConfigurationError? {
        guard case let .failure(error) = engine else { return nil }
        return error
    }

    /// How many pooled connections to `host:port` exist and how many requests wait for one
    /// (zeros when the configuration is unusable); for tests and diagnostics.
    func poolCounts(host: String, port: Int) -> (open: Int, waiting: Int) {
        guard case let .success(engine) = engine else { return (0, 0) }
        return engine.client.poolCounts(host: host, port: port)
    }

    /// How many hosts the pool keeps an entry for (zero when unusable); for tests and diagnostics.
    var pooledHostCount: Int {
        guard case let .success(engine) = engine else { return 0 }
        return engine.client.poolHostCount
    }

    /// How many hosts the HTTP/2 pool keeps an entry for (zero when unusable); for tests and diagnostics.
    var http2HostCount: Int {
        guard case let .success(engine) = engine else { return 0 }
        return engine.client.http2HostCount
    }

    /// How many HTTP/2 connections to `host:port` exist and how many streams they carry; for
    /// tests and diagnostics.
    func http2Counts(host: String, port: Int) -> (connections: Int, streams: Int) {
        guard case let .success(engine) = engine else { return (0, 0) }
        return engine.client.http2Counts(host: host, port: port)
    }

    /// Each HTTP/2 connection to `host:port`, oldest first, as the pool's routing sees it; for tests.
    func http2Loads(host: String, port: Int) -> [HTTP2Pool.Load] {
        guard case let .success(engine) = engine else { return [] }
        return engine.client.http2Loads(host: host, port: port)
    }

    /// Sends `request`: over a verified pooled connection when its host is pinned, through
    /// `inner` otherwise; follows redirects from pinned hosts.
    ///
    /// - Throws: ``PinningConfigurationError`` when the configuration is unusable; `TransportError`
    ///   (``/Strata/TransportError/Kind/tls`` for a refused certificate, ``/Strata/TransportError/Kind/invalidRequest``
    ///   for `http://` to a pinned host, a host with a byte no host name has (such as a `%00`,
    ///   pinned or not) or a request HTTP/1.1 cannot carry,
    ///   ``/Strata/TransportError/Kind/tooManyRedirects``, and the network kinds); `CancellationError`;
    ///   or whatever `inner` throws.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let engine = try engine.get()
        var current = request
        var redirects = 0
        while true {
            let response = try await sendOneHop(current, engine: engine)
            let url = current.url
            guard let location = RedirectPolicy.target(of: response, for: current) else { return response }
            try RedirectPolicy.check(location, from: current, safety: redirectSafety)
            guard
                let next = RedirectPolicy.followUp(
                    to: current, status: response.statusCode, location: location,
                    secrets: redirectSafety.secrets)
            else { return response }
            redirects += 1
            guard redirects <= maxRedirects else {
                throw TransportError(
                    .tooManyRedirects, method: current.method, url: request.url,
                    message: "more than \(maxRedirects) redirects (PinningTransport.Configuration.maxRedirects)")
            }
            TransportEvents.emit(PinningEvent.redirected(from: url, to: location, statusCode: response.statusCode))
            current = next
        }
    }

    /// Sends `request` like ``send(_:)`` and calls `consume` with the final response's head as soon
    /// as it is read and its body as it arrives.
    ///
    /// For a pinned host the body is read only as `consume` reads it, so a download of any size
    /// takes bounded memory: over HTTP/1.1 from the connection (at most a few hundred KiB wait
    /// unread), over HTTP/2 through the stream's flow-control window, which reopens only as far as
    /// `consume` has read (at most the 1 MiB stream window plus a few hundred KiB wait unread).
    /// That bound holds in memory, not only in payload bytes, however small the pieces a server
    /// sends (one byte a DATA frame or chunk): pieces that wait are coalesced. It is not capped by `HTTPLimits.maxResponseBodyBytes`, which bounds what ``send(_:)`` buffers
    /// (head, chunk-size lines and trailers stay bounded). File and stream request bodies are
    /// read as they are sent, over both protocols. Redirects are decided on the head: a redirect
    /// is never handed to `consume` (its body is dropped), and the follow-up streams. Unpinned
    /// hosts go to `inner.stream`.
    ///
    /// When `consume` returns or throws, the body is released. Over HTTP/1.1 a small unread rest
    /// is drained so the connection is reused, a larger one closes it; over HTTP/2 an unfinished
    /// stream is reset (RST_STREAM CANCEL) and the connection carries on with its other streams.
    /// The request's deadline and the idle read timeout apply while the body streams; cancelling
    /// the calling task ends the exchange.
    ///
    /// - Throws: What ``send(_:)`` throws, and what `consume` throws.
    public func stream<Result: Sendable>(
        _ request: HTTPRequest,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        let engine = try engine.get()
        var current = request
        var redirects = 0
        while true {
            let sent = current
            let hop = try await streamOneHop(sent, engine: engine) { head, body async throws -> Hop<Result> in
                let response = HTTPResponse(statusCode: head.statusCode, headers: head.headers, url: head.url)
                guard let location = RedirectPolicy.target(of: response, for: sent) else {
                    return .final(try await consume(head, body))
                }
                try RedirectPolicy.check(location, from: sent, safety: redirectSafety)
                guard
                    let next = RedirectPolicy.followUp(
                        to: sent, status: head.statusCode, location: location,
                        secrets: redirectSafety.secrets)
                else { return .final(try await consume(head, body)) }
                // The redirect's own body is never read: returning releases it.
                return .redirect(next, location: location, statusCode: head.statusCode)
            }
            guard case let .redirect(next, location, statusCode) = hop else {
                guard case let .final(result) = hop else { preconditionFailure("a hop is final or a redirect") }
                return result
            }
            redirects += 1
            guard redirects <= maxRedirects else {
                throw TransportError(
                    .tooManyRedirects, method: current.method, url: request.url,
                    message: "more than \(maxRedirects) redirects (PinningTransport.Configuration.maxRedirects)")
            }
            TransportEvents.emit(PinningEvent.redirected(from: sent.url, to: location, statusCode: statusCode))
            current = next
        }
    }

    /// What one streamed hop came to: `consume`'s result, or a redirect to follow.
    private enum Hop<Result: Sendable>: Sendable {
        case final(Result)
        case redirect(HTTPRequest, location: URL, statusCode: Int)
    }

    /// A `URLSessionTransport` that returns redirects instead of following them, so that every
    /// hop comes back here to be matched against `pinnedDomains`.
    public static func defaultInner() -> URLSessionTransport {
        URLSessionTransport(requestTimeout: .seconds(60), limits: URLSessionTransport.Limits(maxRedirects: 0))
    }

    /// Sends one request without following redirects: over a verified pooled connection when
    /// its host is pinned, through `inner` otherwise.
    ///
    /// The host is put in ``CanonicalHost`` form once, here, and that one value is matched,
    /// pooled, sent as SNI, verified and resolved; redirect targets come through here too. A host
    /// with no canonical form (a NUL or other byte that cannot be in a host name, a malformed IP
    /// literal) is refused for every request, pinned or not: it is never legitimate, and `inner`
    /// could read it as a pinned host that this transport did not recognize.
    private func sendOneHop(_ request: HTTPRequest, engine: Engine) async throws -> HTTPResponse {
        guard let pinned = try Self.pinnedRoute(for: request, engine: engine) else {
            return try await sendToInner(request)
        }
        let negotiation = ContentNegotiation(Self.withDefaultUserAgent(request), offer: contentOffer)
        let limit = ResponseBodyLimit.effective(
            configured: maxResponseBodyBytes,
            setting: "PinningTransport.Configuration.limits.maxResponseBodyBytes")
        guard ResponseBodyLimit.current == nil else {
            // The connections enforce the configured limit as they buffer; another limit for this
            // one call is enforced here, on the streamed (and decoded) body.
            return try await engine.client.stream(
                negotiation.request, host: pinned.host, port: pinned.port,
                evaluator: pinned.evaluator
            ) { head, body in
                let (head, body) = negotiation.decoded(
                    head, body, decoding: contentDecoding,
                    maxDecodedBytes: (Int64(limit.limit), limit.setting))
                return HTTPResponse(
                    statusCode: head.statusCode, headers: head.headers,
                    body: try await negotiation.collect(body, maxBytes: limit), url: head.url)
            }
        }
        let response = try await engine.client.send(
            negotiation.request, host: pinned.host, port: pinned.port,
            evaluator: pinned.evaluator)
        return try await negotiation.decoded(response, decoding: contentDecoding, maxBytes: limit)
    }

    /// Streams one request without following redirects, as ``sendOneHop(_:engine:)`` sends it.
    private func streamOneHop<Result: Sendable>(
        _ request: HTTPRequest, engine: Engine,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        guard let pinned = try Self.pinnedRoute(for: request, engine: engine) else {
            TransportEvents.emit(PinningEvent.sentToInner(url: request.url))
            return try await RedirectPolicy.$isFollowedAbove.withValue(true) { try await inner.stream(request, consume) }
        }
        let negotiation = ContentNegotiation(Self.withDefaultUserAgent(request), offer: contentOffer)
        let maxStreamed = contentDecoding.maxStreamedBytes.map {
            ($0, "PinningTransport.Configuration.contentDecoding.maxStreamedBytes")
        }
        return try await engine.client.stream(
            negotiation.request, host: pinned.host, port: pinned.port,
            evaluator: pinned.evaluator
        ) { head, body in
            let (head, body) = negotiation.decoded(head, body, decoding: contentDecoding, maxDecodedBytes: maxStreamed)
            return try await consume(head, body)
        }
    }

    /// `request` with `User-Agent: Strata/<version>` when it has none: a pinned request leaves
    /// with the same kind of head URLSession gives every other one.
    private static func withDefaultUserAgent(_ request: HTTPRequest) -> HTTPRequest {
        guard !request.headers.contains("User-Agent") else { return request }
        var request = request
        request.headers["User-Agent"] = StrataRelease.userAgent
        return request
    }

    /// Where a pinned request goes (its canonical host, port and evaluator), or nil when the
    /// request is for `inner`.
    ///
    /// - Throws: `TransportError` ``/Strata/TransportError/Kind/invalidRequest`` for a host with no
    ///   canonical form, or a pinned host reached without https.
    private static func pinnedRoute(for request: HTTPRequest, engine: Engine) throws(TransportError)
        -> (host: CanonicalHost, port: Int, evaluator: any ServerTrustEvaluator)?
    {
        let url = request.url
        guard let rawHost = url.host else { return nil }
        let host: CanonicalHost
        do {
            host = try CanonicalHost(rawHost)
        } catch {
            throw TransportError(
                .invalidRequest, method: request.method, url: url,
                message: "refusing the request: \(error.description)", underlying: error)
        }
        guard let evaluator = engine.domains.evaluator(for: host) else { return nil }
        return (host, try httpsPort(of: url, request: request), evaluator)
    }

    /// Sends one hop through `inner`, telling the Strata transports in it to return redirects
    /// rather than follow them: the next hop may be pinned, and only `send(_:)` checks that.
    private func sendToInner(_ request: HTTPRequest) async throws -> HTTPResponse {
        TransportEvents.emit(PinningEvent.sentToInner(url: request.url))
        return try await RedirectPolicy.$isFollowedAbove.withValue(true) { try await inner.send(request) }
    }

    /// The port of an `https` URL for a pinned host; anything else is refused before any I/O.
    private static func httpsPort(of url: URL, request: HTTPRequest) throws(TransportError) -> Int {
        guard url.scheme?.lowercased() == "https" else {
            throw TransportError(
                .invalidRequest, method: request.method, url: url,
                message: "\(url.host ?? "the host") is pinned, so it is only reached over https; "
                    + "refusing to send its request as \(url.scheme ?? "a URL without a scheme")")
        }
        return url.port ?? 443
    }
}

extension PinningTransport: EventObservationScope {
    /// What `inner` says: it sends every request to a host that is not pinned (by default a
    /// ``URLSessionTransport``, which cannot observe); pinned hosts are served here, unobserved.
    package var mayObserveEvents: Bool { TransportEvents.mayBeObserved(within: inner) }
}
