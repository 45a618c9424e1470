#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// The terminal transport of a Strata stack: sends requests with `URLSession` and fixes the
/// FoundationNetworking defects that bite on Linux.
///
/// It owns its own session, configured for a stack with its own layers above it: no URL cache
/// (``ETagTransport`` does conditional requests), `.reloadIgnoringLocalCacheData`, and no cookie
/// storage unless you pass a configuration that has one. On top of URLSession it:
/// - returns a 401 carrying `WWW-Authenticate: Basic` promptly (URLSession on Linux hangs);
/// - follows redirects itself (RFC 9110): secret headers (``RedirectSafety``) never cross
///   origins, `https` is never followed to `http` unless allowed, 307/308 keep method and body,
///   303 becomes `GET`; a 3xx without `Location` is a final response (RFC 9110 §15.4) and is
///   returned, headers and all, though without its body for 301–308, which FoundationNetworking
///   discards (its `Content-Length` goes with it);
/// - returns a body libcurl decoded (`gzip`, `deflate`, `br`, `zstd`) without the stale
///   `Content-Encoding` and `Content-Length`, and fails one in a coding libcurl does not know
///   with a ``TransportError`` naming it (FoundationNetworking cannot hand it over undecoded;
///   `PinningTransport` does);
/// - bounds the whole request, redirects included, by one deadline: the request timeout or the
///   current ``RequestDeadline`` (an endpoint's `timeout`), whichever ends first, failing with
///   ``TransportError/Kind/timedOut`` (FoundationNetworking's own `timeoutIntervalForRequest`
///   only bounds each wait for data, so a server trickling one byte at a time could hold a
///   request for days);
/// - limits the size of a buffered response body (``Limits``);
/// - streams with ``stream(_:_:)``: the head as soon as it arrives, the body as it comes (see
///   there for what Linux's URLSession cannot do);
/// - uploads a file body from the file, never whole in memory; a single-pass body is read into
///   memory first, within ``maxSinglePassUploadBytes`` (make large uploads files, or send them
///   through `PinningTransport`, which streams them);
/// - throws ``TransportError`` with a ``TransportError/Kind`` retry logic can classify, and
///   `CancellationError` when the calling task is cancelled (the URLSession task is cancelled too).
///
/// Copies share one session; it is invalidated when the last copy goes away.
public struct URLSessionTransport: Transport {
    /// Limits on what the transport reads and follows.
    public struct Limits: Sendable, Hashable {
        /// The largest response body `send` accepts (decoded bytes, for a compressed one); larger
        /// ones fail with ``TransportError/Kind/invalidResponse``. A ``ResponseBodyLimit`` set
        /// around one call replaces it for that call. Default: 64 MiB.
        public var maxResponseBodyBytes: Int
        /// The most redirects followed for one request; more fail with
        /// ``TransportError/Kind/tooManyRedirects``. `0` follows none: a 3xx is returned as a
        /// response (a layer above decides). Under a `PinningTransport` no redirect is followed here,
        /// whatever this says: it follows every hop itself, to match each against its pins. Default: 10.
        public var maxRedirects: Int
        /// The most bytes of a streamed body (``URLSessionTransport/stream(_:_:)``) held for a
        /// consumer that reads slower than they arrive; further behind, the body fails with
        /// ``TransportError/Kind/other``. Linux's URLSession cannot pause a download (libcurl
        /// reads on regardless of the delegate, and `URLSessionTask.suspend()`/`resume()` sends the
        /// request again), so this bounds the memory a slow consumer costs. A streamed body is
        /// otherwise not limited in size (``maxResponseBodyBytes`` is for buffered `send`).
        /// Default: 16 MiB, a fifth of a second of a loopback transfer.
        public var maxStreamLagBytes: Int

        /// Creates limits.
        public init(maxResponseBodyBytes: Int = 64 << 20, maxRedirects: Int = 10, maxStreamLagBytes: Int = 16 << 20) {
            self.maxResponseBodyBytes = maxResponseBodyBytes
            self.maxRedirects = maxRedirects
            self.maxStreamLagBytes = maxStreamLagBytes
        }
    }

    /// The transport's URLSession, its delegate, and the queue its task methods are called on.
    final class Session: Sendable {
        let session: URLSession
        let delegate: SessionDelegate
        let calls: URLSessionTaskCalls

        init(configuration: URLSessionConfiguration) {
            calls = URLSessionTaskCalls()
            delegate = SessionDelegate(calls: calls)
            session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        }

        deinit {
            // The last copy of a transport may go away on the cooperative pool: not waited for.
            let session = session
            calls.enqueue { session.finishTasksAndInvalidate() }
        }
    }

    let owner: Session
    let limits: Limits
    let redirectSafety: RedirectSafety
    /// The longest one `send` or `stream` may take, redirects (and a streamed body) included.
    let wholeRequestTimeout: Duration

    /// Creates a transport with an ephemeral session: no URL cache, no cookies.
    ///
    /// - Parameters:
    ///   - requestTimeout: How long one request may take in all, redirects included, before it
    ///     fails with ``TransportError/Kind/timedOut`` (also the longest wait for more data). An
    ///     earlier ``RequestDeadline`` (an endpoint's `timeout`) wins. Default: 60 seconds.
    ///   - limits: Size and redirect limits.
    ///   - redirectSafety: Which headers stay with their origin, and whether https may redirect
    ///     to http. Default: every default secret header stays, no downgrade.
    public init(
        requestTimeout: Duration = .seconds(60), limits: Limits = Limits(),
        redirectSafety: RedirectSafety = RedirectSafety()
    ) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        // Whole seconds and more are what libcurl honours; a huge Duration must not trap.
        configuration.timeoutIntervalForRequest =
            Duration.clampedSeconds(
                requestTimeout.inSeconds,
                limit: .seconds(Int64(Int32.max))
            ).inSeconds
        self.init(
            configuration: configuration, limits: limits, redirectSafety: redirectSafety,
            wholeRequestTimeout: requestTimeout)
    }

    /// Creates a transport with the request timeout in seconds, as earlier versions spelled it.
    @available(*, deprecated, message: "Pass a Duration: requestTimeout: .seconds(10)")
    public init(requestTimeout: TimeInterval, limits: Limits = Limits(), redirectSafety: RedirectSafety = RedirectSafety()) {
        self.init(
            requestTimeout: Duration.clampedSeconds(requestTimeout, limit: .seconds(Int64(Int32.max))),
            limits: limits, redirectSafety: redirectSafety)
    }

    /// Creates a transport from your own configuration (proxies, timeouts, cookie storage).
    ///
    /// The URL cache is always removed and the cache policy set to
    /// `.reloadIgnoringLocalCacheData`: caching belongs to ``ETagTransport``, and
    /// FoundationNetworking's cache would otherwise hand it bare 304s.
    public init(configuration: URLSessionConfiguration) {
        self.init(configuration: configuration, limits: Limits())
    }

    /// Creates a transport from your own configuration, with limits.
    ///
    /// The configuration's `timeoutIntervalForResource` bounds each whole request, redirects
    /// included (enforced here: FoundationNetworking does not); an earlier ``RequestDeadline``
    /// wins.
    public init(configuration: URLSessionConfiguration, limits: Limits, redirectSafety: RedirectSafety = RedirectSafety()) {
        self.init(
            configuration: configuration, limits: limits, redirectSafety: redirectSafety,
            wholeRequestTimeout: .clampedSeconds(
                configuration.timeoutIntervalForResource,
                limit: .seconds(86_400 * 365)))
    }

    private init(
        configuration: URLSessionConfiguration, limits: Limits, redirectSafety: RedirectSafety,
        wholeRequestTimeout: Duration
    ) {
        let configuration = configuration.copy() as? URLSessionConfiguration ?? configuration
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        owner = Session(configuration: configuration)
        self.limits = limits
        self.redirectSafety = redirectSafety
        self.wholeRequestTimeout = wholeRequestTimeout
    }

    /// Sends the request and returns the final response after redirects.
    ///
    /// - Throws: ``TransportError`` (``TransportError/Kind/invalidRequest`` for a non-HTTP URL,
    ///   a header that could inject others or a refused redirect, without sending anything;
    ///   ``TransportError/Kind/timedOut`` when the request timeout or ``RequestDeadline``
    ///   passes), or `CancellationError`.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        // One deadline for the whole request, redirects included: the configured timeout or an
        // enclosing RequestDeadline, whichever ends first.
        try await RequestDeadline.withTimeout(
            wholeRequestTimeout,
            setBy: "URLSessionTransport's requestTimeout, "
                + "or the configuration's timeoutIntervalForResource"
        ) {
            try await sendFollowingRedirects(request)
        }
    }

    private func sendFollowingRedirects(_ request: HTTPRequest) async throws -> HTTPResponse {
        var current = request
        var redirects = 0
        while true {
            let response = try await sendOnce(current)
            guard limits.maxRedirects > 0, !RedirectPolicy.isFollowedAbove,
                let location = RedirectPolicy.target(of: response, for: current)
            else {
                return response
            }
            try RedirectPolicy.check(location, from: current, safety: redirectSafety)
            guard
                let next = RedirectPolicy.followUp(
                    to: current, status: response.statusCode, location: location,
                    secrets: redirectSafety.secrets)
            else { return response }
            redirects += 1
            guard redirects <= limits.maxRedirects else {
                throw TransportError(
                    .tooManyRedirects, method: current.method, url: request.url,
                    message: "more than \(limits.maxRedirects) redirects (URLSessionTransport.Limits.maxRedirects)")
            }
            current = next
        }
    }

    private func sendOnce(_ request: HTTPRequest) async throws -> HTTPResponse {
        let exchange = try await URLSessionExchange(try await Self.withBodyInMemoryIfSinglePass(request), on: owner)
        defer { exchange.end() }
        let delegate = owner.delegate
        let bodyLimit = ResponseBodyLimit.effective(
            configured: limits.maxResponseBodyBytes,
            setting: "URLSessionTransport.Limits.maxResponseBodyBytes")
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard
                    delegate.register(
                        exchange.task, request: exchange.foundation, bodyLimit: bodyLimit,
                        continuation: continuation)
                else { return }
                exchange.start()
            }
        } onCancel: {
            exchange.cancel()
        }
    }

    /// The most bytes of a single-pass request body held in memory for URLSession. Give a larger
    /// upload as a file (``HTTPBody/init(contentsOf:)``), which URLSession reads as it sends.
    public static let maxSinglePassUploadBytes = 64 << 20

    /// `request` with a single-pass body read into memory, within ``maxSinglePassUploadBytes``.
    ///
    /// FoundationNetworking reads a streamed body (`httpBodyStream`) on a work queue every
    /// URLSession shares, and blocks it while the producer is slow: one slow upload stalled every
    /// other request of the process. Files and bytes go as they are.
    ///
    /// - Throws: ``TransportError`` of kind ``TransportError/Kind/invalidRequest`` when the body is
    ///   larger or cannot be read; nothing was sent.
    static func withBodyInMemoryIfSinglePass(_ request: HTTPRequest) async throws -> HTTPRequest {
        guard let body = request.body, case .singlePass = body.source else { return request }
        var buffered = request
        do {
            buffered.body = HTTPBody(try await body.collect(upTo: maxSinglePassUploadBytes))
        } catch let error as HTTPBodyError {
            throw TransportError(
                .invalidRequest, method: request.method, url: request.url,
                message: "cannot send the request body: \(error.description)", underlying: error)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw TransportError(
                .invalidRequest, method: request.method, url: request.url,
                message: "cannot send the request body: its sequence threw \(type(of: error))", underlying: error)
        }
        return buffered
    }

    static func validate(_ request: HTTPRequest) throws(TransportError) {
        let method = request.method
        let url = request.url
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host?.isEmpty == false else {
            throw TransportError(
                .invalidRequest, method: method, url: request.url,
                message: "only absolute http and https URLs can be sent")
        }
        do {
            try request.headers.validate()
        } catch {
            throw TransportError(.invalidRequest, method: method, url: url, message: error.description, underlying: error)
        }
    }
}

extension URLSessionTransport: EventObservationScope {
    /// `false`: a terminal, with no transport below.
    package var mayObserveEvents: Bool { false }
}
