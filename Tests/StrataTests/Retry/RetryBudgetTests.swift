#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing

@Suite("Retry budget")
struct RetryBudgetTests {
    // MARK: Bucket arithmetic (pure)

    @Test("a retry withdraws its cost; a timeout costs more; too few tokens refuses the retry")
    func withdrawals() {
        var bucket = RetryTokenBucket(budget: RetryBudget(maxTokens: 12, retryCost: 5, timeoutRetryCost: 10))
        #expect(bucket.withdraw(for: .status(503)) == 5)
        #expect(bucket.tokens == 7)
        #expect(bucket.withdraw(for: .transportError(.timedOut)) == nil)
        #expect(bucket.withdraw(for: .transportError(.connectionLost)) == 5)
        #expect(bucket.tokens == 2)
        #expect(bucket.withdraw(for: .status(503)) == nil)
        #expect(bucket.tokens == 2)
    }

    @Test("a success refunds the last retry's cost if it was retried, else the reward, never above the capacity")
    func deposits() {
        var bucket = RetryTokenBucket(budget: RetryBudget(maxTokens: 20, retryCost: 5, successReward: 1))
        _ = bucket.withdraw(for: .status(503))
        _ = bucket.withdraw(for: .status(503))
        #expect(bucket.tokens == 10)
        bucket.recordSuccess(lastRetryCost: nil)
        #expect(bucket.tokens == 11)
        bucket.recordSuccess(lastRetryCost: 5)
        #expect(bucket.tokens == 16)
        bucket.recordSuccess(lastRetryCost: 5)
        #expect(bucket.tokens == 20)
        var huge = RetryTokenBucket(budget: RetryBudget(maxTokens: .max, successReward: .max))
        huge.recordSuccess(lastRetryCost: nil)
        #expect(huge.tokens == .max)
    }

    // MARK: Through the transport

    private func retrying(_ inner: any Transport, policy: RetryPolicy) -> RetryTransport {
        RetryFixtures.retrying(inner, policy: policy, random: .init(Array(repeating: 0.5, count: 10_000)))
    }

    @Test("under a dependency that always answers 503, sends per request drop to ≤ 1.2 once the bucket drains")
    func drainsUnderSustainedFailure() async throws {
        let inner = CannedRoutesTransport(routes: [CannedRoute(pattern: RequestPattern(path: "/todos"), response: .status(503))])
        let retrying = retrying(inner, policy: RetryPolicy(maxRetries: 3))
        let requests = 1_000
        var sendsPerRequest: [Int] = []
        var drainedAfter: Int?
        for index in 0..<requests {
            let before = await inner.recordedRequests.count
            let response = try await retrying.send(RetryFixtures.request())
            #expect(response.statusCode == 503)
            sendsPerRequest.append(await inner.recordedRequests.count - before)
            if drainedAfter == nil, let tokens = retrying.availableRetryTokens, tokens < RetryBudget().retryCost {
                drainedAfter = index + 1
            }
        }
        let drained = try #require(drainedAfter)
        let afterDrain = sendsPerRequest[drained...]
        let ratioAfterDrain = Double(afterDrain.reduce(0, +)) / Double(afterDrain.count)
        let ratioOverall = Double(sendsPerRequest.reduce(0, +)) / Double(requests)
        // Measured: the 500 tokens pay for 100 retries (34 requests), then 1.0 send per request;
        // 1,100 sends for 1,000 requests (1.1) instead of 4,000 without a budget.
        #expect(drained == 34)
        #expect(ratioAfterDrain <= 1.2)
        #expect(ratioAfterDrain == 1.0)
        #expect(ratioOverall == 1.1)
    }

    @Test("without a budget, the same outage gets maxRetries + 1 sends per request")
    func noBudgetMeansFourSends() async throws {
        let inner = CannedRoutesTransport(routes: [CannedRoute(pattern: RequestPattern(path: "/todos"), response: .status(503))])
        let retrying = retrying(inner, policy: RetryPolicy(maxRetries: 3, budget: nil))
        for _ in 0..<100 { _ = try await retrying.send(RetryFixtures.request()) }
        #expect(await inner.recordedRequests.count == 400)
        #expect(retrying.availableRetryTokens == nil)
    }

    @Test("successes refill a drained bucket until retries are allowed again")
    func refillsOnSuccess() async throws {
        let inner = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(path: "/down"), response: .status(503)),
            CannedRoute(pattern: RequestPattern(path: "/up"), response: .status(200)),
        ])
        let budget = RetryBudget(maxTokens: 10, retryCost: 5, successReward: 1)
        let retrying = retrying(inner, policy: RetryPolicy(maxRetries: 3, budget: budget))
        func sends(_ path: String) async throws -> Int {
            let before = await inner.recordedRequests.count
            _ = try await retrying.send(RetryFixtures.request(path: path))
            return await inner.recordedRequests.count - before
        }

        #expect(try await sends("/down") == 3) // two retries spend all 10 tokens
        #expect(retrying.availableRetryTokens == 0)
        #expect(try await sends("/down") == 1) // drained: no retry
        for _ in 0..<4 { _ = try await sends("/up") }
        #expect(retrying.availableRetryTokens == 4)
        #expect(try await sends("/down") == 1) // 4 tokens do not pay for a retry
        _ = try await sends("/up")
        #expect(retrying.availableRetryTokens == 5)
        #expect(try await sends("/down") == 2) // refilled: retried again
    }

    @Test("a request that succeeds after a retry gets its retry's cost back")
    func refundAfterRetriedSuccess() async throws {
        let inner = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(path: "/todos"), responses: [.status(503), .status(200)])
        ])
        let retrying = retrying(inner, policy: RetryPolicy(budget: RetryBudget(maxTokens: 100)))
        _ = try await retrying.send(RetryFixtures.request())
        #expect(retrying.availableRetryTokens == 100)
    }

    @Test("a timeout retry costs timeoutRetryCost, a non-retryable error costs and earns nothing")
    func errorCosts() async throws {
        let inner = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(path: "/slow"), error: TransportError(.timedOut)),
            CannedRoute(pattern: RequestPattern(path: "/tls"), error: TransportError(.tls)),
        ])
        let retrying = retrying(inner, policy: RetryPolicy(maxRetries: 1))
        await #expect(throws: TransportError.self) { try await retrying.send(RetryFixtures.request(path: "/slow")) }
        #expect(retrying.availableRetryTokens == 490)
        await #expect(throws: TransportError.self) { try await retrying.send(RetryFixtures.request(path: "/tls")) }
        #expect(retrying.availableRetryTokens == 490)
    }

    @Test("copies of a RetryTransport share one bucket, separate instances do not")
    func sharedBetweenCopies() async throws {
        let inner = CannedRoutesTransport(routes: [CannedRoute(pattern: RequestPattern(path: "/todos"), response: .status(503))])
        let policy = RetryPolicy(maxRetries: 1, budget: RetryBudget(maxTokens: 5))
        let original = retrying(inner, policy: policy)
        let copy = original
        let separate = retrying(inner, policy: policy)
        _ = try await copy.send(RetryFixtures.request())
        #expect(original.availableRetryTokens == 0)
        #expect(separate.availableRetryTokens == 5)
    }

    @Test("concurrent requests never spend more than the bucket holds")
    func concurrentRequests() async throws {
        let inner = CannedRoutesTransport(routes: [CannedRoute(pattern: RequestPattern(path: "/todos"), response: .status(503))])
        let retrying = retrying(inner, policy: RetryPolicy(maxRetries: 3, budget: RetryBudget(maxTokens: 50)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<200 { group.addTask { _ = try await retrying.send(RetryFixtures.request()) } }
            try await group.waitForAll()
        }
        #expect(await inner.recordedRequests.count == 200 + 10)
        #expect(retrying.availableRetryTokens == 0)
    }
}
