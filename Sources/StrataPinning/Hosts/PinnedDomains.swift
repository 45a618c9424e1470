/// The `pinnedDomains` table: host patterns, each with the evaluator that checks its servers.
///
/// ``evaluator(forHost:)`` answers the two questions a pinning transport asks per request: is
/// this host pinned at all (nil means no: send it unpinned), and if so, what must its verified
/// chain satisfy. When several patterns match a host, passing any one of their evaluators is
/// enough, so pins from all matching patterns count (OkHttp's rule).
struct PinnedDomains: Sendable {
    /// One pattern and its evaluator.
    struct Entry: Sendable {
        let pattern: HostPattern
        let evaluator: any ServerTrustEvaluator
    }

    let entries: [Entry]

    /// Parses every key of `domains` as a ``HostPattern``.
    ///
    /// - Throws: ``PinningConfigurationError/malformedHostPattern(_:reason:)`` for the first bad
    ///   key in sorted order.
    init(_ domains: [String: any ServerTrustEvaluator]) throws(PinningConfigurationError) {
        var entries: [Entry] = []
        // Sorted so errors and failure messages do not depend on dictionary order.
        for (key, evaluator) in domains.sorted(by: { $0.key < $1.key }) {
            entries.append(Entry(pattern: try HostPattern(key), evaluator: evaluator))
        }
        self.entries = entries
    }

    /// The patterns, sorted.
    var patterns: [HostPattern] { entries.map(\.pattern) }

    /// The evaluator for `host`, or nil when no pattern matches (the host is not pinned).
    ///
    /// With one matching pattern this is that pattern's evaluator. With several, it passes when
    /// any of them passes; if all fail with pin mismatches, the thrown
    /// ``ServerTrustError/pinMismatch(host:chain:pins:)`` lists every configured pin.
    /// A host with no ``CanonicalHost`` form (such as one containing a NUL) is never pinned here;
    /// ``PinningTransport`` refuses such requests outright.
    func evaluator(forHost host: String) -> (any ServerTrustEvaluator)? {
        guard let canonical = try? CanonicalHost(host) else { return nil }
        return evaluator(for: canonical)
    }

    /// The evaluator for an already canonical host, or nil when it is not pinned.
    func evaluator(for host: CanonicalHost) -> (any ServerTrustEvaluator)? {
        let matching = entries.filter { $0.pattern.matches(host) }.map(\.evaluator)
        guard matching.count > 1 else { return matching.first }
        return AnyOfTrustEvaluator(evaluators: matching)
    }
}
