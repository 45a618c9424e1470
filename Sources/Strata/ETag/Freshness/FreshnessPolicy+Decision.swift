import Foundation

/// What a stored response may do for a request, decided by
/// ``FreshnessPolicy/use(of:for:directives:now:rule:sharedStorage:)``.
enum StoredResponseUse: Hashable, Sendable {
    /// Serve it without the network: it is fresh, and the request accepts it.
    case fresh(EntryAge)
    /// Serve it without the network although stale: the request's `max-stale` accepts it.
    case stale(EntryAge)
    /// Serve it at once and revalidate it in the background (RFC 5861 §3).
    case staleWhileRevalidate(EntryAge)
    /// Ask the server (conditionally). When revalidating fails, the response may still answer
    /// within `staleIfError` (RFC 5861 §4); `nil`: it may not.
    case revalidate(staleIfError: StaleIfErrorAllowance?)
}

/// How long a stored response may answer for a request whose revalidation failed.
struct StaleIfErrorAllowance: Hashable, Sendable {
    /// The response's age and lifetime when the decision was made.
    var age: EntryAge
    /// The greatest age at which it may still answer: its lifetime plus the window.
    var untilAge: Double

    /// The response's age `elapsed` seconds after the decision, if it may still answer then.
    func ageIfAllowed(after elapsed: Double) -> Double? {
        let current = age.currentAge + max(0, elapsed)
        return current <= untilAge ? current : nil
    }
}

extension FreshnessPolicy {
    /// Decides what `entry` may do for `request` at `now` (RFC 9111 §4.2.4, §5.2; RFC 5861).
    ///
    /// - Parameters:
    ///   - directives: The request's `Cache-Control` directives, parsed.
    ///   - rule: The endpoint's policy for the request.
    ///   - sharedStorage: Whether the store is shared by several clients (see
    ///     ``ETagStoreProtocol/isSharedStorage``), where §3.5 restricts responses to
    ///     authorized requests.
    ///   - now: The current time; read only when the entry's age matters (at most once).
    func use(
        of entry: ETagCacheEntry, for request: HTTPRequest, directives: CacheDirectives, now clock: () -> Date,
        rule: EndpointCachePolicy, sharedStorage: Bool
    ) -> StoredResponseUse {
        // An entry of unknown age (written before 0.4) is only a validator, and so is one whose
        // age decides nothing (no lifetime, no stale window): its Date is not even parsed, nor
        // the clock read.
        guard let times = entry.exchangeTimes, usesAge(of: entry, rule: rule) else { return .revalidate(staleIfError: nil) }
        let now = clock()
        // An entry received in the future (a clock set wrong, or planted in a shared store) would
        // not age until then, fresh for ever: past a small skew its age is unknown too, and it
        // only validates until a 304 dates it anew. (Clamping it to now on each read would keep
        // it just as young.)
        guard times.responseTime.timeIntervalSince(now) <= Self.clockSkewAllowance else {
            return .revalidate(staleIfError: nil)
        }
        let response = CacheDirectives(entry.headers)
        let age: EntryAge
        var mayServeStale = !directives.noCache
        switch rule.kind {
        case .reuse(let seconds):
            // The endpoint's time, from receipt, replaces every freshness header.
            age = EntryAge(currentAge: max(0, now.timeIntervalSince(times.responseTime)), lifetime: seconds)
        case .standard, .alwaysRevalidate:
            // §4.2.4: no-cache and must-revalidate forbid serving stale, even on error; in a
            // shared store so do s-maxage (§5.2.2.10) and proxy-revalidate (§5.2.2.8).
            let mustRevalidate =
                response.mustRevalidate
                || (sharedStorage && (response.hasSharedMaxAge || response.proxyRevalidate))
            mayServeStale = mayServeStale && !response.noCache && !mustRevalidate
            age = EntryAge(
                headers: entry.headers, directives: response, times: times, now: now,
                heuristicLimit: heuristicLimit(for: entry, directives: response, rule: rule),
                sharedCache: sharedStorage)
        case .neverStore:
            return .revalidate(staleIfError: nil)
        }
        // §3.5: a store shared by several clients serves a response to an authorized request
        // without the origin checking the credential only when the response allows it.
        // A `private` response is for one user (§5.2.2.7), so there it only serves as a validator,
        // never stale either (stale-if-error under alwaysRevalidate included). Only reuse(for:),
        // the endpoint owner's explicit choice, overrides it.
        if sharedStorage, !rule.reusesForATime,
            response.isPrivate
                || (request.headers.contains("Authorization")
                    && !(response.isPublic || response.hasSharedMaxAge || response.mustRevalidate))
        {
            return .revalidate(staleIfError: nil)
        }
        let staleIfError =
            mayServeStale
            ? staleIfErrorWindow(request: directives, response: response)
                .map { StaleIfErrorAllowance(age: age, untilAge: age.lifetime + $0) } : nil
        guard servesFreshResponses, rule.kind != .alwaysRevalidate else {
            return .revalidate(staleIfError: staleIfError)
        }
        // §5.2.2.4: a response with no-cache is always revalidated (unless the endpoint's time rules).
        if response.noCache, case .standard = rule.kind { return .revalidate(staleIfError: nil) }
        // §5.2.1.4: the request's no-cache wants the origin's answer.
        if directives.noCache { return .revalidate(staleIfError: staleIfError) }
        // §5.2.1.1: no older than max-age.
        if let maxAge = directives.maxAge, age.currentAge > Double(maxAge) {
            return .revalidate(staleIfError: staleIfError)
        }
        if age.isFresh {
            // §5.2.1.3: still fresh for at least min-fresh.
            if let minFresh = directives.minFresh, age.lifetime - age.currentAge < Double(minFresh) {
                return .revalidate(staleIfError: staleIfError)
            }
            return .fresh(age)
        }
        guard mayServeStale else { return .revalidate(staleIfError: nil) }
        // §5.2.1.2: the request accepts this much staleness.
        if let maxStale = directives.maxStale, age.staleness <= Double(maxStale) { return .stale(age) }
        // RFC 5861 §3, unless the request asked for a bound on age or freshness.
        if directives.maxAge == nil, directives.minFresh == nil, let window = response.staleWhileRevalidate,
            age.staleness <= Double(window)
        {
            return .staleWhileRevalidate(age)
        }
        return .revalidate(staleIfError: staleIfError)
    }

    /// How far in the future, in seconds, a stored response's receipt may lie (clocks of a
    /// fleet sharing a store disagree a little) and still be aged from it.
    static let clockSkewAllowance: Double = 60

    /// The stale-if-error window in seconds: the request's, else the response's, else this
    /// policy's default.
    private func staleIfErrorWindow(request: CacheDirectives, response: CacheDirectives) -> Double? {
        if let seconds = request.staleIfError ?? response.staleIfError { return Double(seconds) }
        return staleIfError?.inSeconds
    }

    /// Whether a status from revalidation lets a stale response answer instead (RFC 5861 §4:
    /// 500, 502, 503 and 504).
    static func allowsStaleIfError(status: Int) -> Bool {
        switch status {
        case 500, 502, 503, 504: true
        default: false
        }
    }
}

extension FreshnessPolicy {
    /// Whether `entry`'s age is ever used: it may become fresh (a freshness lifetime of its own,
    /// heuristic freshness, an endpoint that reuses it for a time) or be served stale
    /// (`stale-while-revalidate`, `stale-if-error`). When not, refreshing its exchange times
    /// after a 304 changes no decision, and the store need not be rewritten for them.
    func usesAge(of entry: ETagCacheEntry, rule: EndpointCachePolicy) -> Bool {
        if rule.reusesForATime || staleIfError != nil { return true }
        if entry.declaresFreshness { return true }
        return heuristicLimit(for: rule) != nil && entry.lastModified != nil
    }
}
