/// What one endpoint asks of ``ETagTransport``'s cache, whatever the server's `Cache-Control`
/// says: reuse a response for a set time, always ask the server, or never store; or, following
/// the headers, whether a response with only `Last-Modified` may be guessed fresh (RFC 9111
/// §4.2.2): ``heuristicFreshness(upTo:)``, ``explicitFreshnessOnly``.
///
/// Set it as ``EndpointProtocol/cachePolicy``; ``HTTPNetworkService`` applies it to the
/// endpoint's requests. Around a transport called directly, use ``apply(_:)``:
/// ```swift
/// enum ConfigAPI: EndpointProtocol {
///     case flags
///     var path: String { "/flags" }
///     var method: HTTPMethod { .get }
///     var cachePolicy: EndpointCachePolicy { .reuse(for: .seconds(30)) }   // Nexa's ttl
/// }
/// let response = try await EndpointCachePolicy.alwaysRevalidate.apply { try await stack.send(request) }
/// ```
/// It travels as a task-local value, as ``RequestDeadline`` does: the layers between the service
/// and the cache need not know it. It is part of what makes two requests identical for
/// coalescing, and a background refresh keeps the policy of the request that started it.
public struct EndpointCachePolicy: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case standard
        case reuse(seconds: Double)
        case alwaysRevalidate
        case neverStore
    }

    /// Heuristic freshness (RFC 9111 §4.2.2) for this endpoint's responses.
    enum Heuristic: Sendable, Hashable {
        /// As the transport's ``FreshnessPolicy/heuristicLimit`` says.
        case transportDefault
        /// None.
        case off
        /// 10% of the `Last-Modified` age, at most this many seconds.
        case upTo(seconds: Double)
    }

    let kind: Kind
    let heuristic: Heuristic

    private init(_ kind: Kind, heuristic: Heuristic = .transportDefault) {
        self.kind = kind
        self.heuristic = heuristic
    }

    /// Follow the response's headers (RFC 9111): the default.
    public static let standard = EndpointCachePolicy(.standard)

    /// Serve the stored response without the network for `duration` after it was received,
    /// whatever its `Cache-Control`, `Expires` or `Age` say (`no-cache` and `must-revalidate`
    /// included), and store it even when it has no validator. A response with `no-store` is
    /// still never stored. After `duration`, the response is revalidated (or downloaded again,
    /// when it has no validator). Requests' own directives (`no-cache`, `max-age=0`) still apply.
    /// In a shared store (``ETagStoreProtocol/isSharedStorage``) it also overrides RFC 9111
    /// §3.5: `private` responses and responses to requests with `Authorization` are served
    /// without the origin too. That is your explicit choice for the endpoint; every other
    /// policy keeps them from being served without the origin, stale-if-error included.
    ///
    /// - Parameter duration: How long a response is reused; zero or less reuses nothing.
    /// - Returns: The policy.
    public static func reuse(for duration: Duration) -> EndpointCachePolicy {
        EndpointCachePolicy(.reuse(seconds: max(0, duration.inSeconds)))
    }

    /// Follow the response's headers (RFC 9111) and, for a response with `Last-Modified` but no
    /// explicit freshness, guess as browsers and proxies do (RFC 9111 §4.2.2): fresh for 10% of
    /// the time between its `Date` and `Last-Modified`, at most `limit`. Only for a status that is
    /// heuristically cacheable (RFC 9110 §15.1: 200, 203, 204, 206, 300, 301, 308, 404, 405, 410,
    /// 414, 501) or a response marked `public`; never when the response has `max-age`, `Expires`
    /// (in a shared store also `s-maxage`) or `no-cache`. Whatever the transport's
    /// ``FreshnessPolicy/heuristicLimit`` says.
    ///
    /// - Parameter limit: The longest heuristic freshness. Default: 24 hours, past which
    ///   RFC 7234 §4.2.2 asked caches to warn that the guess is a long one.
    /// - Returns: The policy.
    public static func heuristicFreshness(upTo limit: Duration = .seconds(86_400)) -> EndpointCachePolicy {
        EndpointCachePolicy(.standard, heuristic: .upTo(seconds: max(0, limit.inSeconds)))
    }

    /// Follow the response's headers (RFC 9111) and never guess: a response without `max-age`
    /// or `Expires` is stale at once, and revalidated on every use, whatever the transport's
    /// ``FreshnessPolicy/heuristicLimit`` says.
    public static let explicitFreshnessOnly = EndpointCachePolicy(.standard, heuristic: .off)

    /// Never serve a stored response without the server's 304, whatever its freshness: the
    /// behaviour of `ETagTransport` before 0.4.
    public static let alwaysRevalidate = EndpointCachePolicy(.alwaysRevalidate)

    /// Neither read nor write the store: the request goes to the network untouched.
    public static let neverStore = EndpointCachePolicy(.neverStore)

    /// `standard`, `standard, heuristic freshness up to 86400.0 s`, `standard, no heuristic
    /// freshness`, `reuse for 30.0 s`, `always revalidate` or `never store`.
    public var description: String {
        switch (kind, heuristic) {
        case (.standard, .upTo(let seconds)): "standard, heuristic freshness up to \(seconds) s"
        case (.standard, .off): "standard, no heuristic freshness"
        case (.standard, .transportDefault): "standard"
        case (.reuse(let seconds), _): "reuse for \(seconds) s"
        case (.alwaysRevalidate, _): "always revalidate"
        case (.neverStore, _): "never store"
        }
    }

    /// Whether the policy reuses responses for a set time (and so stores them without validators).
    var reusesForATime: Bool {
        if case .reuse = kind { return true }
        return false
    }

    @TaskLocal static var current: EndpointCachePolicy = .standard

    /// Runs `body` with this policy applied to every request it sends through an
    /// ``ETagTransport``.
    ///
    /// - Parameter body: The work whose requests the policy applies to.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func apply<T>(_ body: () async throws -> T) async rethrows -> T {
        try await Self.$current.withValue(self, operation: body)
    }

    /// ``apply(_:)``, skipped for ``standard`` (the task-local default): what the service does
    /// for every endpoint, at no cost for those that set nothing.
    func applyUnlessStandard<T>(_ body: () async throws -> T) async rethrows -> T {
        guard self != .standard || Self.current != .standard else { return try await body() }
        return try await apply(body)
    }
}
