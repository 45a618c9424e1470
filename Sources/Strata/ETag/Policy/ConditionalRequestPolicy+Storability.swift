extension ConditionalRequestPolicy {
    /// Whether the headers give the response an explicit lifetime (RFC 9111 §4.2.1): `max-age`,
    /// `Expires`, or, in a shared store only, `s-maxage` (§5.2.2.10), which is a shared store's
    /// lifetime even without the others.
    static func hasExplicitFreshness(_ headers: HTTPHeaders, sharedStorage: Bool) -> Bool {
        if headers.contains("Expires") { return true }
        guard headers.contains("Cache-Control") else { return false }
        let directives = CacheDirectives(headers)
        return directives.maxAge != nil || (sharedStorage && directives.hasSharedMaxAge)
    }
}
