import Strata

extension HedgingPolicy {
    /// Whether `request` may be sent more than once at the same time. Pure.
    ///
    /// The checks, each of which must pass:
    /// 1. ``maxHedgedAttempts`` is above 0.
    /// 2. The method is idempotent (RFC 9110 §9.2.2: `GET`, `HEAD`, `OPTIONS`, `TRACE`, `PUT`,
    ///    `DELETE`), or the request carries a non-empty `Idempotency-Key`, the same rule as
    ///    `RetryPolicy`: two sends of one `POST` may create two orders.
    /// 3. The body is absent or replayable: a single-pass body can be read by one send only.
    package func isHedgeable(_ request: HTTPRequest) -> Bool {
        guard maxHedgedAttempts > 0 else { return false }
        let hasIdempotencyKey = request.headers["Idempotency-Key"]?.isEmpty == false
        guard request.method.isIdempotent || hasIdempotencyKey else { return false }
        return request.isReplayable
    }

    /// How many hedges may be scheduled for a request, hedge `n` being sent `n × delay` after
    /// the first attempt. Pure.
    ///
    /// A hedge whose delay would not end before the request's deadline is not scheduled: it
    /// could only start as the deadline ends the request.
    ///
    /// - Parameters:
    ///   - delay: The delay before each hedge.
    ///   - timeLeft: The time left before the request's `RequestDeadline`, or `nil` for none.
    /// - Returns: A number in `0...maxHedgedAttempts`.
    package func hedgesThatFit(delay: Duration, timeLeft: Duration?) -> Int {
        guard let timeLeft else { return maxHedgedAttempts }
        var fitting = 0
        while fitting < maxHedgedAttempts, delay * (fitting + 1) < timeLeft { fitting += 1 }
        return fitting
    }
}
