#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// A decorator that sends a request again when it failed in a way that may pass: a transient
/// network error or a status such as 503, waiting with jittered exponential backoff or as long as
/// the server's `Retry-After` asks.
///
/// Use it around the transport that talks to the network, inside a `ReauthTransport`:
/// ```swift
/// let retrying = RetryTransport(inner: URLSessionTransport(),
///                               policy: RetryPolicy(maxRetries: 3, baseDelay: 0.5)) { event in
///     logger.info("\(event)")   // retry 1 of GET https://… in 0.371 s (status 503)
/// }
/// let service = HTTPNetworkService(transport: retrying)
/// ```
///
/// ## Contract
/// - What is retried is decided by ``RetryPolicy/decision(for:request:retriesSoFar:previousBackoff:now:random:)``:
///   idempotent methods (or any request with an `Idempotency-Key`) that got a retryable status or
///   a transient ``TransportError``. A 401, 403 or other unlisted status, a TLS or pinning
///   failure, an invalid request and `CancellationError` are never retried, so a
///   `ReauthTransport` outside this one sees each 401 exactly once.
/// - When the transport stops, it returns the last response as is (the service then maps a 503
///   to an error) or throws the last error.
/// - Cancelling the calling task, during a send or during the wait, ends with
///   `CancellationError` at once.
/// - All requests through one instance, and its copies, share one ``RetryBudget`` bucket.
/// - Each retry is reported to `onRetry` and to ``TransportEvents`` (for ``LoggingTransport``),
///   and every retry runs as the next ``TransportEvents`` attempt of the logical request.
public struct RetryTransport: Transport {
    /// The transport each attempt is sent through.
    public let inner: any Transport
    /// The rules for what is retried and how long to wait.
    public let policy: RetryPolicy
    /// The clock, sleep and randomness used.
    public let environment: RetryEnvironment
    /// Called before each wait with what is retried, when and why.
    public let onRetry: (@Sendable (RetryEvent) -> Void)?
    private let budget: SharedRetryBudget?

    /// Creates a retrying transport.
    ///
    /// - Parameters:
    ///   - inner: The transport each attempt is sent through.
    ///   - policy: What is retried and how long to wait.
    ///   - environment: The clock, sleep and randomness; tests inject their own.
    ///   - onRetry: Called before each wait, for logging; it must return quickly.
    public init(inner: any Transport, policy: RetryPolicy = RetryPolicy(),
                environment: RetryEnvironment = .live,
                onRetry: (@Sendable (RetryEvent) -> Void)? = nil) {
        self.inner = inner
        self.policy = policy
        self.environment = environment
        self.onRetry = onRetry
        budget = policy.budget.map(SharedRetryBudget.init)
    }

    /// The tokens left in the shared retry budget, or `nil` when the policy has no budget.
    public var availableRetryTokens: Int? { budget?.tokens }

    /// Sends `request`, retrying as the policy allows.
    ///
    /// - Returns: The first response that is not retried: a success, a status the policy does
    ///   not retry, or the last response when retries, the budget or `maxRetryAfter` ran out.
    /// - Throws: The last error when it is not retryable or retries ran out; `CancellationError`
    ///   when the calling task is cancelled.
    public func send(_ request: URLRequest) async throws -> HTTPResponse {
        // One logical request: a LoggingTransport below sees every attempt under one identifier.
        try await TransportEvents.withinRequest { try await sendRetrying(request) }
    }

    private func sendRetrying(_ request: URLRequest) async throws -> HTTPResponse {
        var retries = 0
        var previousBackoff: Double?
        var lastRetryCost: Int?
        while true {
            try Task.checkCancellation()
            let outcome: RetryOutcome
            do {
                outcome = .response(retries == 0
                    ? try await inner.send(request)
                    : try await TransportEvents.withNextAttempt { try await inner.send(request) })
            } catch {
                outcome = .failure(error)
            }
            let decision = policy.decision(for: outcome, request: request, retriesSoFar: retries,
                                           previousBackoff: previousBackoff, now: environment.now(),
                                           random: environment.random)
            guard case .retry(let plan) = decision else {
                if case .stop(.notRetryable) = decision, case .response = outcome {
                    budget?.recordSuccess(lastRetryCost: lastRetryCost)
                }
                return try outcome.get()
            }
            if let budget {
                // The dependency is failing too often for retries to help: hand back what we have.
                guard let cost = budget.withdraw(for: plan.reason) else { return try outcome.get() }
                lastRetryCost = cost
            }
            retries += 1
            if plan.delaySource == .backoff { previousBackoff = plan.delay }
            onRetry?(RetryEvent(attempt: retries, delay: plan.delay, reason: plan.reason,
                                delaySource: plan.delaySource, method: HTTPMethod(request), url: request.url))
            TransportEvents.emit(.retryScheduled(attempt: retries, delay: plan.delay, reason: "\(plan.reason)"))
            // A custom sleep may return normally although the task was cancelled meanwhile; the
            // check at the top of the loop then stops before another send.
            try await environment.sleep(.seconds(plan.delay))
        }
    }
}
