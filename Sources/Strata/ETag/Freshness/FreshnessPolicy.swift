/// How ``ETagTransport`` reuses stored responses without asking the server: the settings of its
/// private cache (RFC 9111 §4.2, RFC 5861). The defaults follow the responses' own
/// `Cache-Control`, `Expires`, `Date` and `Age` fields and guess nothing.
///
/// ```swift
/// // Keep answering from the store for up to 10 minutes past freshness while the origin fails,
/// // and treat responses with only Last-Modified as fresh for 10% of their age (at most 1 hour).
/// let freshness = FreshnessPolicy(heuristicLimit: .seconds(3_600), staleIfError: .seconds(600))
/// let transport = ETagTransport(inner: URLSessionTransport(), freshness: freshness)
/// ```
public struct FreshnessPolicy: Sendable, Hashable {
    /// Whether stored responses are ever served without asking the server. `false` makes the
    /// layer what it was before 0.4: every `GET` goes out, conditionally when possible.
    public var servesFreshResponses: Bool
    /// The longest heuristic freshness (RFC 9111 §4.2.2) given to a response with
    /// `Last-Modified` but no `max-age` or `Expires`: 10% of the time between its `Date` and
    /// `Last-Modified`, capped at this. `nil` (the default) gives none: such a response is
    /// stale at once and revalidated on every use, because an API's `Last-Modified` usually
    /// dates data that can change at any moment (the Caching article gives the reasons). An endpoint
    /// overrides it either way: ``EndpointCachePolicy/heuristicFreshness(upTo:)`` (the browsers'
    /// rule, 24 hours at most) or ``EndpointCachePolicy/explicitFreshnessOnly``.
    public var heuristicLimit: Duration?
    /// How long past its freshness a stored response may answer when revalidating it fails (a
    /// network failure, a timeout, or a 500, 502, 503 or 504) and the response named no
    /// `stale-if-error` of its own (RFC 5861 §4). `nil` (the default): only when the response or
    /// the request says `stale-if-error`.
    public var staleIfError: Duration?
    /// The most background revalidations (`stale-while-revalidate`) one transport runs at once;
    /// past it, a stale response is still served, and the next request starts the refresh.
    public var maxBackgroundRefreshes: Int

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - servesFreshResponses: Whether fresh responses are served without the network.
    ///     Default: `true`.
    ///   - heuristicLimit: The cap of heuristic freshness, or `nil` (the default) for none.
    ///   - staleIfError: The `stale-if-error` window for responses without their own, or
    ///     `nil` (the default) for none.
    ///   - maxBackgroundRefreshes: The most concurrent background refreshes; at least 1 is
    ///     used. Default: 8.
    public init(
        servesFreshResponses: Bool = true, heuristicLimit: Duration? = nil, staleIfError: Duration? = nil,
        maxBackgroundRefreshes: Int = 8
    ) {
        self.servesFreshResponses = servesFreshResponses
        self.heuristicLimit = heuristicLimit
        self.staleIfError = staleIfError
        self.maxBackgroundRefreshes = max(1, maxBackgroundRefreshes)
    }

    /// The fraction of `Date` − `Last-Modified` that heuristic freshness grants (RFC 9111
    /// §4.2.2 suggests 10%).
    static let heuristicFraction = 0.1
}
