import Strata

extension RateLimitPolicy {
    /// A token bucket the client keeps to per group, so that it never sends faster than a rate
    /// it knows the server allows: ``requestsPerSecond`` on average, up to ``burst`` at once
    /// after a quiet spell.
    ///
    /// Reservation style, as Guava's `RateLimiter` and Go's `rate.Limiter.Reserve`: a request
    /// takes a token when one is there, or reserves the next one and waits exactly until it is
    /// due; requests are due in the order they arrived. A request whose wait would pass
    /// ``RateLimitPolicy/maxWait`` or its deadline reserves nothing and fails at once. A
    /// request cancelled while it waits does not give its token back (as in Guava): the rate
    /// errs on the slow side.
    /// ```swift
    /// let policy = RateLimitPolicy(clientLimit: .init(requestsPerSecond: 10, burst: 20))
    /// ```
    public struct ClientLimit: Sendable, Hashable {
        /// The average rate, in requests per second; clamped to `0.001...1_000_000`.
        public var requestsPerSecond: Double
        /// How many requests may go at once after a quiet spell; at least 1.
        public var burst: Int

        /// Creates a client limit.
        ///
        /// - Parameters:
        ///   - requestsPerSecond: The average rate (one request per `1 / requestsPerSecond` s).
        ///   - burst: The bucket's size: how many requests may go at once. Default 1: evenly
        ///     spaced requests.
        public init(requestsPerSecond: Double, burst: Int = 1) {
            self.requestsPerSecond = requestsPerSecond
            self.burst = burst
        }

        /// The time between two tokens.
        var interval: Duration {
            let rate = requestsPerSecond.isNaN ? 1 : min(max(requestsPerSecond, 0.001), 1_000_000)
            return .seconds(1 / rate)
        }

        /// ``burst``, at least 1 and at most 1,000,000.
        var effectiveBurst: Int { min(max(burst, 1), 1_000_000) }
    }
}
