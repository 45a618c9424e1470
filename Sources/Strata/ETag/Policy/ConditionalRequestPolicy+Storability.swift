extension ConditionalRequestPolicy {
    /// The statuses RFC 9110 §15.1 calls heuristically cacheable, stored under the same rules as
    /// a `200`: 200, 203, 204, 300, 301, 308, 404, 405, 410, 414 and 501. Not 206: partial
    /// content is never stored (a `Range` request passes through the layer untouched).
    static let heuristicallyCacheableStatuses: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Statuses never stored, whatever the response says: they answer this attempt, not the
    /// resource, and ask the client to try again, with another credential (401, 407) or later
    /// (408, 429, 500, 502, 503, 504). Stored, one would answer the very retry it asks for
    /// (``RetryTransport`` above this layer, a token refresh under a named partition), and a
    /// 500/502/503/504 would replace the response that `stale-if-error` keeps for an outage.
    static let neverStoredStatuses: Set<Int> = [401, 407, 408, 429, 500, 502, 503, 504]

    /// Whether a response with `status` may be stored at all (RFC 9111 §3): a final status this
    /// layer understands (200–599), not 206 (partial), 304 (it only freshens a stored response)
    /// or one of ``neverStoredStatuses``; and, unless it is heuristically cacheable, only with
    /// explicit freshness (``hasExplicitFreshness(_:sharedStorage:)``), `public`, or, in a
    /// private store, `private` (RFC 9111 §3 lists each). The rules every stored response
    /// follows (a validator or a lifetime, no `no-store`, ...) still apply.
    static func mayStore(status: Int, headers: HTTPHeaders, sharedStorage: Bool) -> Bool {
        if heuristicallyCacheableStatuses.contains(status) { return true }
        guard (200...599).contains(status), status != 206, status != 304, !neverStoredStatuses.contains(status) else {
            return false
        }
        if hasExplicitFreshness(headers, sharedStorage: sharedStorage) { return true }
        guard headers.contains("Cache-Control") else { return false }
        let directives = CacheDirectives(headers)
        return directives.isPublic || (!sharedStorage && directives.isPrivate)
    }

    /// Whether the headers give the response an explicit lifetime (RFC 9111 §4.2.1): `max-age`,
    /// `Expires`, or, in a shared store only, `s-maxage` (§5.2.2.10), which is a shared store's
    /// lifetime even without the others.
    static func hasExplicitFreshness(_ headers: HTTPHeaders, sharedStorage: Bool) -> Bool {
        if headers.contains("Expires") { return true }
        guard headers.contains("Cache-Control") else { return false }
        let directives = CacheDirectives(headers)
        return directives.maxAge != nil || (sharedStorage && directives.hasSharedMaxAge)
    }

    /// Whether a full response with `status` that is not stored still outdates the stored
    /// response it answers for: a new representation of the resource (or its absence) replaces
    /// the old one even when it cannot be kept itself; a failure does not.
    static func outdatesStoredResponse(status: Int) -> Bool {
        heuristicallyCacheableStatuses.contains(status)
    }
}
