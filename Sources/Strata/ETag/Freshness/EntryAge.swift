import Foundation

/// A stored response's current age and freshness lifetime, in seconds, as RFC 9111 computes
/// them (for a private cache unless told it is shared): a pure function of the stored headers, the exchange times and now.
struct EntryAge: Hashable, Sendable {
    /// `current_age` (§4.2.3).
    var currentAge: Double
    /// `freshness_lifetime` (§4.2.1, §4.2.2).
    var lifetime: Double

    /// The response is fresh while its lifetime exceeds its age (§4.2).
    var isFresh: Bool { lifetime > currentAge }
    /// How far past its lifetime the response is; zero or less while fresh.
    var staleness: Double { currentAge - lifetime }

    /// The age and lifetime of a response with `headers` (and its parsed `directives`),
    /// exchanged at `times`, seen at `now`.
    ///
    /// - Parameters:
    ///   - heuristicLimit: The cap of heuristic freshness, or `nil` for none.
    ///   - sharedCache: Whether the store is shared, so that `s-maxage` is the lifetime.
    init(
        headers: HTTPHeaders, directives: CacheDirectives, times: ExchangeTimes, now: Date, heuristicLimit: Duration?,
        sharedCache: Bool = false
    ) {
        let responseTime = times.responseTime.timeIntervalSince1970
        // §4.2.3: a response without a (valid) Date is dated when it was received.
        let date = headers["Date"].flatMap { HTTPDate.parseForFreshness($0, now: now) }?.timeIntervalSince1970 ?? responseTime
        let apparentAge = max(0, responseTime - date)
        // A request sent after its response came (an entry built by hand) has no delay.
        let responseDelay = max(0, responseTime - times.requestTime.timeIntervalSince1970)
        let correctedAgeValue = Double(Self.receivedAge(in: headers) ?? 0) + responseDelay
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        // A wall clock set back never makes a response younger than it was at receipt.
        let residentTime = max(0, now.timeIntervalSince1970 - responseTime)
        currentAge = correctedInitialAge + residentTime
        // §4.2.1: a shared cache uses s-maxage before every other lifetime.
        if sharedCache, let sharedMaxAge = directives.sharedMaxAge {
            lifetime = Double(sharedMaxAge)
        } else {
            lifetime = Self.lifetime(
                headers: headers, directives: directives, date: date, now: now,
                heuristicLimit: heuristicLimit)
        }
    }

    /// An age and lifetime given directly (an endpoint's ``EndpointCachePolicy/reuse(for:)``).
    init(currentAge: Double, lifetime: Double) {
        self.currentAge = currentAge
        self.lifetime = lifetime
    }

    /// §4.2.1, for a private cache: `max-age`, else `Expires` − `Date`, else (when allowed)
    /// 10% of `Date` − `Last-Modified` capped at `heuristicLimit`, else 0. (`s-maxage`, which
    /// comes first in a shared cache, is the caller's.)
    private static func lifetime(
        headers: HTTPHeaders, directives: CacheDirectives, date: Double, now: Date,
        heuristicLimit: Duration?
    ) -> Double {
        if let maxAge = directives.maxAge { return Double(maxAge) }
        if let expires = headers["Expires"] {
            // §5.3: an invalid Expires, such as "0", is a time in the past.
            guard let expiry = HTTPDate.parseForFreshness(expires, now: now) else { return 0 }
            return max(0, expiry.timeIntervalSince1970 - date)
        }
        guard let heuristicLimit, let modified = headers["Last-Modified"].flatMap({ HTTPDate.parseForFreshness($0, now: now) }) else {
            return 0
        }
        let sinceModified = date - modified.timeIntervalSince1970
        guard sinceModified > 0 else { return 0 }
        return min(sinceModified * FreshnessPolicy.heuristicFraction, heuristicLimit.inSeconds)
    }

    /// The current age as the `Age` field states it.
    var ageFieldValue: Int { Self.fieldValue(ofAge: currentAge) }

    /// An age in seconds as the `Age` field states it: whole seconds, at most 2³¹ (§5.1).
    static func fieldValue(ofAge seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int(min(seconds, Double(CacheDirectives.maxDeltaSeconds)))
    }
}
