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
///   303 becomes `GET`;
/// - bounds the whole request, redirects included, by one deadline: the request timeout or the
///   current ``RequestDeadline`` (an endpoint's `timeout`), whichever ends first, failing with
///   ``TransportError/Kind/timedOut`` (FoundationNetworking's own `timeoutIntervalForRequest`
///   only bounds each wait for data, so a server trickling one byte at a time could hold a
///   request for days);
/// - limits the size of a response body (``Limits``);
/// - throws ``TransportError`` with a ``TransportError/Kind`` retry logic can classify, and
///   `CancellationError` when the calling task is cancelled (the URLSession task is cancelled too).
///
/// Copies share one session; it is invalidated when the last copy goes away.
public struct URLSessionTransport: Transport {
    /// Limits on what the transport reads and follows.
    public struct Limits: Sendable, Hashable {
        /// The largest response body accepted; larger ones fail with
        /// ``TransportError/Kind/invalidResponse``. Default: 64 MiB.
        public var maxResponseBodyBytes: Int
        /// The most redirects followed for one request; more fail with
        /// ``TransportError/Kind/tooManyRedirects``. `0` follows none: a 3xx is returned as a
        /// response (a layer above decides). Under a `PinningTransport` no redirect is followed here,
        /// whatever this says: it follows every hop itself, to match each against its pins. Default: 10.
        public var maxRedirects: Int

        /// Creates limits.
        public init(maxResponseBodyBytes: Int = 64 << 20, maxRedirects: Int = 10) {
            self.maxResponseBodyBytes = maxResponseBodyBytes
            self.maxRedirects = maxRedirects
        }
    }

    private final class Session: Sendable {
        let session: URLSession
        let delegate: SessionDelegate
        init(configuration: URLSessionConfiguration, delegate: SessionDelegate) {
            self.delegate = delegate
            session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        }
        deinit { session.finishTasksAndInvalidate() }
    }

    private let owner: Session
    private let limits: Limits
    private let redirectSafety: RedirectSafety
    /// The longest one `send` may take, redirects included.
    private let wholeRequestTimeout: Duration

    /// Creates a transport with an ephemeral session: no URL cache, no cookies.
    ///
    /// - Parameters:
    ///   - requestTimeout: How long one request may take in all, redirects included, before it
    ///     fails with ``TransportError/Kind/timedOut`` (also the longest wait for more data). An
    ///     earlier ``RequestDeadline`` (an endpoint's `timeout`) wins. Default: 60 seconds.
    ///   - limits: Size and redirect limits.
    ///   - redirectSafety: Which headers stay with their origin, and whether https may redirect
    ///     to http. Default: every default secret header stays, no downgrade.
    public init(requestTimeout: Duration = .seconds(60), limits: Limits = Limits(),
                redirectSafety: RedirectSafety = RedirectSafety()) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        // Whole seconds and more are what libcurl honours; a huge Duration must not trap.
        configuration.timeoutIntervalForRequest = Duration.clampedSeconds(requestTimeout.inSeconds,
                                                                          limit: .seconds(Int64(Int32.max))).inSeconds
        self.init(configuration: configuration, limits: limits, redirectSafety: redirectSafety,
                  wholeRequestTimeout: requestTimeout)
    }

    /// Creates a transport with the request timeout in seconds, as earlier versions spelled it.
    @available(*, deprecated, message: "Pass a Duration: requestTimeout: .seconds(10)")
    public init(requestTimeout: TimeInterval, limits: Limits = Limits(), redirectSafety: RedirectSafety = RedirectSafety()) {
        self.init(requestTimeout: Duration.clampedSeconds(requestTimeout, limit: .seconds(Int64(Int32.max))),
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
        self.init(configuration: configuration, limits: limits, redirectSafety: redirectSafety,
                  wholeRequestTimeout: .clampedSeconds(configuration.timeoutIntervalForResource,
                                                       limit: .seconds(86_400 * 365)))
    }

    private init(configuration: URLSessionConfiguration, limits: Limits, redirectSafety: RedirectSafety,
                 wholeRequestTimeout: Duration) {
        let configuration = configuration.copy() as? URLSessionConfiguration ?? configuration
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        owner = Session(configuration: configuration, delegate: SessionDelegate(limits: limits))
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
        try await RequestDeadline.withTimeout(wholeRequestTimeout, setBy: "URLSessionTransport's requestTimeout, "
                                              + "or the configuration's timeoutIntervalForResource") {
            try await sendFollowingRedirects(request)
        }
    }

    private func sendFollowingRedirects(_ request: HTTPRequest) async throws -> HTTPResponse {
        var current = request
        var redirects = 0
        while true {
            let response = try await sendOnce(current)
            guard limits.maxRedirects > 0, !RedirectPolicy.isFollowedAbove,
                  let location = RedirectPolicy.target(of: response, for: current) else {
                return response
            }
            try RedirectPolicy.check(location, from: current, safety: redirectSafety)
            guard let next = RedirectPolicy.followUp(to: current, status: response.statusCode, location: location,
                                                     secrets: redirectSafety.secrets)
            else { return response }
            redirects += 1
            guard redirects <= limits.maxRedirects else {
                throw TransportError(.tooManyRedirects, method: current.method, url: request.url,
                                     message: "more than \(limits.maxRedirects) redirects (URLSessionTransport.Limits.maxRedirects)")
            }
            current = next
        }
    }

    private func sendOnce(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        try Self.validate(request)
        let timedOut = RequestDeadline.timedOut(method: request.method, url: request.url)
        guard let deadline = RequestDeadline.current, deadline > .now else { throw timedOut }
        let request = try await foundationRequest(for: request)
        let task = owner.session.dataTask(with: request)
        let delegate = owner.delegate
        let timer = delegate.fail(task, at: deadline, with: timedOut)
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard delegate.register(task, request: request, continuation: continuation) else { return }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// `request` as URLSession takes it. A body in memory or a file goes as it is (a file is
    /// read by URLSession as it sends); a single-pass stream is read into memory first, within
    /// ``singlePassUploadLimit``, since FoundationNetworking takes no stream of our own.
    private func foundationRequest(for request: HTTPRequest) async throws -> URLRequest {
        var foundation = request.urlRequest
        if let body = request.body, case .singlePass = body.source {
            do {
                foundation.httpBody = try await body.collect(upTo: Self.singlePassUploadLimit)
            } catch let error as HTTPBodyError {
                throw TransportError(.invalidRequest, method: request.method, url: request.url,
                                     message: "cannot send the request body: \(error.description)", underlying: error)
            }
        }
        return foundation
    }

    /// The most bytes of a single-pass request body held in memory for URLSession: the size the
    /// response limit defaults to. Give a larger upload as a file (``HTTPBody/init(contentsOf:)``).
    static let singlePassUploadLimit = 64 << 20

    private static func validate(_ request: HTTPRequest) throws(TransportError) {
        let method = request.method
        let url = request.url
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host?.isEmpty == false else {
            throw TransportError(.invalidRequest, method: method, url: request.url,
                                 message: "only absolute http and https URLs can be sent")
        }
        do {
            try request.headers.validate()
        } catch {
            throw TransportError(.invalidRequest, method: method, url: url, message: error.description, underlying: error)
        }
    }
}
