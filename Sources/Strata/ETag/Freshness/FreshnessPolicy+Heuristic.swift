extension FreshnessPolicy {
    /// The cap of heuristic freshness (RFC 9111 §4.2.2) for a request under `rule`: the
    /// endpoint's choice (``EndpointCachePolicy/heuristicFreshness(upTo:)``,
    /// ``EndpointCachePolicy/explicitFreshnessOnly``), else this policy's ``heuristicLimit``;
    /// `nil` for none.
    func heuristicLimit(for rule: EndpointCachePolicy) -> Duration? {
        switch rule.heuristic {
        case .transportDefault: heuristicLimit
        case .off: nil
        case .upTo(let seconds):
            // No lifetime is longer than 2^31 seconds (RFC 9111 §1.2.2), and clamping first keeps
            // `.seconds(Int64.max)` from trapping in the conversion to milliseconds.
            .milliseconds(Int64((min(seconds, Double(CacheDirectives.maxDeltaSeconds)) * 1_000).rounded(.down)))
        }
    }

    /// ``heuristicLimit(for:)`` when `entry` may be given heuristic freshness at all: §4.2.2
    /// allows it only for a heuristically cacheable status (RFC 9110 §15.1) or a response marked
    /// `public` (explicitly cacheable). `max-age`, `Expires` and `no-cache` rule it out too, where
    /// the lifetime is computed and decided.
    func heuristicLimit(for entry: ETagCacheEntry, directives: CacheDirectives, rule: EndpointCachePolicy) -> Duration? {
        guard let limit = heuristicLimit(for: rule) else { return nil }
        // The statuses the layer stores as it stores a 200 (206, also in RFC 9110 §15.1's list,
        // is never stored, so never served).
        let status = entry.statusCode
        guard ConditionalRequestPolicy.heuristicallyCacheableStatuses.contains(status) || directives.isPublic else { return nil }
        return limit
    }
}
