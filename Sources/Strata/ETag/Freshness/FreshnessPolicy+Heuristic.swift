extension FreshnessPolicy {
    /// The cap of heuristic freshness (RFC 9111 §4.2.2) for a request under `rule`: the
    /// endpoint's choice (``EndpointCachePolicy/heuristicFreshness(upTo:)``,
    /// ``EndpointCachePolicy/explicitFreshnessOnly``), else this policy's ``heuristicLimit``;
    /// `nil` for none.
    func heuristicLimit(for rule: EndpointCachePolicy) -> Duration? {
        switch rule.heuristic {
        case .transportDefault: heuristicLimit
        case .off: nil
        case .upTo(let seconds): .milliseconds(Int64((seconds * 1_000).rounded(.down)))
        }
    }

    /// ``heuristicLimit(for:)`` when `entry` may be given heuristic freshness at all: §4.2.2
    /// allows it only for a heuristically cacheable status (RFC 9110 §15.1) or a response marked
    /// `public` (explicitly cacheable). `max-age`, `Expires` and `no-cache` rule it out too, where
    /// the lifetime is computed and decided.
    func heuristicLimit(for entry: ETagCacheEntry, directives: CacheDirectives, rule: EndpointCachePolicy) -> Duration? {
        guard let limit = heuristicLimit(for: rule) else { return nil }
        guard Self.heuristicallyCacheableStatuses.contains(entry.statusCode) || directives.isPublic else { return nil }
        return limit
    }

    /// The status codes RFC 9110 §15.1 defines as heuristically cacheable.
    static let heuristicallyCacheableStatuses: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]
}
