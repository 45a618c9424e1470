/// What one endpoint asks of ``ETagTransport``'s cache, whatever the server's `Cache-Control`
/// says: reuse a response for a set time, always ask the server, or never store.
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

    let kind: Kind

    private init(_ kind: Kind) { self.kind = kind }

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

    /// Never serve a stored response without the server's 304, whatever its freshness: the
    /// behaviour of `ETagTransport` before 0.4.
    public static let alwaysRevalidate = EndpointCachePolicy(.alwaysRevalidate)

    /// Neither read nor write the store: the request goes to the network untouched.
    public static let neverStore = EndpointCachePolicy(.neverStore)

    /// `standard`, `reuse for 30.0 s`, `always revalidate` or `never store`.
    public var description: String {
        switch kind {
        case .standard: "standard"
        case .reuse(let seconds): "reuse for \(seconds) s"
        case .alwaysRevalidate: "always revalidate"
        case .neverStore: "never store"
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
        guard kind != .standard || Self.current.kind != .standard else { return try await body() }
        return try await apply(body)
    }
}
