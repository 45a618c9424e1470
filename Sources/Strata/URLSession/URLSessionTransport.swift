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
/// - follows redirects by ``RedirectPolicy``'s rules: credentials never cross origins, 307/308
///   keep method and body, 303 becomes `GET`;
/// - limits the size of a response body (``Limits``);
/// - ends a request when its ``RequestDeadline`` passes (an endpoint's `timeout`), redirects
///   included, with ``TransportError/Kind/timedOut``;
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
        /// response (a layer above, such as `PinningTransport`, then decides). Default: 10.
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

    /// Creates a transport with an ephemeral session: no URL cache, no cookies.
    ///
    /// - Parameters:
    ///   - requestTimeout: How long to wait for more data before failing with
    ///     ``TransportError/Kind/timedOut``. Default: 60 seconds.
    ///   - limits: Size and redirect limits.
    public init(requestTimeout: Duration = .seconds(60), limits: Limits = Limits()) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        // Whole seconds and more are what libcurl honours; a huge Duration must not trap.
        configuration.timeoutIntervalForRequest = Duration.clampedSeconds(requestTimeout.inSeconds,
                                                                          limit: .seconds(Int64(Int32.max))).inSeconds
        self.init(configuration: configuration, limits: limits)
    }

    /// Creates a transport with the request timeout in seconds, as earlier versions spelled it.
    @available(*, deprecated, message: "Pass a Duration: requestTimeout: .seconds(10)")
    public init(requestTimeout: TimeInterval, limits: Limits = Limits()) {
        self.init(requestTimeout: Duration.clampedSeconds(requestTimeout, limit: .seconds(Int64(Int32.max))), limits: limits)
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
    public init(configuration: URLSessionConfiguration, limits: Limits) {
        let configuration = configuration.copy() as? URLSessionConfiguration ?? configuration
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        owner = Session(configuration: configuration, delegate: SessionDelegate(limits: limits))
        self.limits = limits
    }

    /// Sends the request and returns the final response after redirects.
    ///
    /// - Throws: ``TransportError`` (``TransportError/Kind/invalidRequest`` for a non-HTTP URL or
    ///   a header that could inject others, without sending anything), or `CancellationError`.
    public func send(_ request: URLRequest) async throws -> HTTPResponse {
        var current = request
        var redirects = 0
        while true {
            let response = try await sendOnce(current)
            guard limits.maxRedirects > 0, let location = RedirectPolicy.target(of: response, for: current),
                  let next = RedirectPolicy.followUp(to: current, status: response.statusCode, location: location)
            else { return response }
            redirects += 1
            guard redirects <= limits.maxRedirects else {
                throw TransportError(.tooManyRedirects, method: HTTPMethod(current), url: request.url,
                                     message: "more than \(limits.maxRedirects) redirects (URLSessionTransport.Limits.maxRedirects)")
            }
            current = next
        }
    }

    private func sendOnce(_ request: URLRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        try Self.validate(request)
        // The request's whole-request deadline (RequestDeadline), which spans redirects too.
        let deadline = RequestDeadline.current
        let timedOut = RequestDeadline.timedOut(method: HTTPMethod(request), url: request.url)
        if let deadline, deadline <= .now { throw timedOut }
        let task = owner.session.dataTask(with: request)
        let delegate = owner.delegate
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard delegate.register(task, request: request, continuation: continuation) else { return }
                if let deadline { delegate.fail(task, at: deadline, with: timedOut) }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    private static func validate(_ request: URLRequest) throws(TransportError) {
        let method = HTTPMethod(request)
        guard let url = request.url, let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host?.isEmpty == false else {
            throw TransportError(.invalidRequest, method: method, url: request.url,
                                 message: "only absolute http and https URLs can be sent")
        }
        do {
            try HTTPHeaders(request).validate()
        } catch {
            throw TransportError(.invalidRequest, method: method, url: url, message: error.description, underlying: error)
        }
    }
}
