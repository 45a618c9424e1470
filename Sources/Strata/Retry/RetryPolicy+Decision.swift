#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

extension RetryPolicy {
    /// The statuses whose `Retry-After` is honoured: RFC 9110 §10.2.3 and RFC 6585 §4 give it a
    /// meaning for 503 and 429. On other statuses the header is ignored and backoff applies.
    static let retryAfterStatusCodes: Set<Int> = [429, 503]

    /// Decides what to do after one attempt. Pure: the same inputs give the same decision.
    ///
    /// The checks run in this order, and the first that applies wins:
    /// 1. `CancellationError` → stop (``RetryStopReason/cancelled``).
    /// 2. A response whose status is not in ``retryableStatusCodes``, or an error that is not a
    ///    transient ``TransportError`` → stop (``RetryStopReason/notRetryable``).
    /// 3. A method not in ``retryableMethods`` and no non-empty `Idempotency-Key` header → stop.
    /// 4. `retriesSoFar >= maxRetries` → stop (``RetryStopReason/retriesExhausted``).
    /// 5. A 429 or 503 with a valid `Retry-After`: longer than ``maxRetryAfter`` → stop;
    ///    otherwise retry after exactly that long.
    /// 6. Otherwise retry after the jittered exponential backoff (a malformed `Retry-After`
    ///    lands here too).
    /// 7. A retry whose wait would not end before the request's deadline → stop
    ///    (``RetryStopReason/timeoutWouldPass``).
    ///
    /// The shared budget is not consulted here; ``RetryTransport`` applies it to a `.retry`.
    ///
    /// - Parameters:
    ///   - outcome: What the attempt produced.
    ///   - request: The request that was sent (its method and headers are read).
    ///   - retriesSoFar: Retries already made for this request (0 after the first attempt).
    ///   - previousBackoff: The previous computed (not `Retry-After`) delay of this request, for
    ///     ``Jitter/decorrelated``; `nil` before the first retry.
    ///   - now: The current time, for `Retry-After` HTTP-dates; read only when one is present.
    ///   - random: A source of numbers in `0..<1`, called at most once, only when jitter needs it.
    ///   - timeLeft: The time left before the request's ``RequestDeadline``, or `nil` for none;
    ///     read only for a retry (a success never reads the clock).
    /// - Returns: ``RetryDecision/retry(_:)`` with the delay, or ``RetryDecision/stop(_:)``.
    package func decision(
        for outcome: RetryOutcome, request: HTTPRequest, retriesSoFar: Int,
        previousBackoff: Duration? = nil, now: @autoclosure () -> Date,
        random: () -> Double, timeLeft: @autoclosure () -> Duration? = nil
    ) -> RetryDecision {
        let decision = decisionIgnoringDeadline(
            for: outcome, request: request, retriesSoFar: retriesSoFar,
            previousBackoff: previousBackoff, now: now, random: random)
        // The wait and at least a moment for the next send must fit before the deadline.
        if case .retry(let plan) = decision, let timeLeft = timeLeft(), plan.delay >= timeLeft { return .stop(.timeoutWouldPass) }
        return decision
    }

    private func decisionIgnoringDeadline(
        for outcome: RetryOutcome, request: HTTPRequest, retriesSoFar: Int,
        previousBackoff: Duration?, now: () -> Date,
        random: () -> Double
    ) -> RetryDecision {
        let reason: RetryReason
        var response: HTTPResponse?
        switch outcome {
        case .failure(let error):
            if error is CancellationError { return .stop(.cancelled) }
            guard let error = error as? TransportError, error.isTransient else { return .stop(.notRetryable) }
            reason = .transportError(error.kind)
        case .response(let answer):
            guard retryableStatusCodes.contains(answer.statusCode) else { return .stop(.notRetryable) }
            reason = .status(answer.statusCode)
            response = answer
        }

        let method = request.method
        // RFC 9110 §9.2.2: only idempotent requests may be repeated automatically, unless the
        // caller made the request safe to repeat with an Idempotency-Key.
        let hasIdempotencyKey = request.headers["Idempotency-Key"]?.isEmpty == false
        guard retryableMethods.contains(method) || hasIdempotencyKey else {
            return .stop(.methodNotRetryable(method))
        }
        guard retriesSoFar < maxRetries else { return .stop(.retriesExhausted) }
        // A single-pass body was read by the first send; a second send could not carry it.
        guard request.isReplayable else { return .stop(.bodyNotReplayable) }

        if let response, Self.retryAfterStatusCodes.contains(response.statusCode),
            let header = response.headers["Retry-After"],
            let seconds = RetryAfter.seconds(from: header, now: now())
        {
            let asked = Self.clamped(seconds: seconds)
            guard seconds <= Self.clamped(maxRetryAfter).inSeconds else { return .stop(.retryAfterTooLong(asked)) }
            return .retry(RetryPlan(delay: asked, reason: reason, delaySource: .retryAfter))
        }
        let delay = backoff(retry: retriesSoFar, previous: previousBackoff, random: random)
        return .retry(RetryPlan(delay: delay, reason: reason, delaySource: .backoff))
    }

    /// The jittered exponential delay before retry number `retry + 1`.
    ///
    /// - Parameters:
    ///   - retry: Retries already made (0 for the first retry's delay).
    ///   - previous: The previous computed delay, for ``Jitter/decorrelated``.
    ///   - random: A source of numbers in `0..<1`; values outside are clamped.
    package func backoff(retry: Int, previous: Duration?, random: () -> Double) -> Duration {
        // Computed in seconds: 2^62 keeps baseDelay × 2ⁿ finite for any clamped baseDelay, and
        // the cap applies anyway.
        let baseDelay = Self.clamped(baseDelay).inSeconds
        let maxDelay = Self.clamped(maxDelay).inSeconds
        let exponent = Double(min(max(retry, 0), 62))
        let capped = min(maxDelay, baseDelay * pow(2, exponent))
        let delay: Double
        switch jitter {
        case .none:
            delay = capped
        case .full:
            delay = capped * Self.unit(random())
        case .equal:
            delay = capped / 2 + capped / 2 * Self.unit(random())
        case .decorrelated:
            let low = baseDelay
            let high = Self.clamped(previous ?? .seconds(baseDelay)).inSeconds * 3
            delay = min(maxDelay, low + (high - low) * Self.unit(random()))
        }
        return Self.clamped(seconds: delay)
    }

    /// `value` within `0...1`, so a faulty random source cannot produce a negative or huge delay.
    private static func unit(_ value: Double) -> Double {
        guard !value.isNaN else { return 0 }
        return min(max(value, 0), 1)
    }
}
