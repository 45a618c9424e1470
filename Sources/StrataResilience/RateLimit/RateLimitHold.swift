import Strata

/// What a response says about its group's rate limit: hold the next requests for ``duration``
/// from when it arrived, as ``source`` asked. The output of ``RateLimitHeaders``.
package struct RateLimitHold: Sendable, Hashable {
    /// How long from the response's arrival the window stays closed; always positive.
    package var duration: Duration
    /// The field that asked for it.
    package var source: RateLimitSource

    /// Creates a hold of `duration`.
    package init(duration: Duration, source: RateLimitSource) {
        self.duration = duration
        self.source = source
    }

    /// A hold of `seconds` (clamped to ``RateLimitHeaders/longestHold``), or `nil` when
    /// `seconds` is not positive: a window that is open already holds nothing.
    init?(seconds: Double, source: RateLimitSource) {
        let duration = Duration.clampedSeconds(seconds, limit: RateLimitHeaders.longestHold)
        guard duration > .zero else { return nil }
        self.init(duration: duration, source: source)
    }
}
