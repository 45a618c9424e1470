import Strata

extension HedgingTransport {
    /// Streams `request`, hedging it as the policy allows, and decides on the head: the first
    /// attempt whose response head arrives wins, whatever its status, and the others are
    /// cancelled before their bodies are read. `consume` is then called once, in the calling
    /// task, with the winner's head and body; the winner's exchange is released when `consume`
    /// returns or throws, and `stream` returns once every attempt's exchange has ended.
    ///
    /// Cancelling the calling task cancels every attempt, the winner's too while `consume` reads.
    ///
    /// - Returns: What `consume` returned.
    /// - Throws: The first attempt's error when every attempt failed before a head; what
    ///   `consume` or reading the body throws; `CancellationError` when the calling task is
    ///   cancelled.
    public func stream<Result: Sendable>(
        _ request: HTTPRequest,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        guard policy.isHedgeable(request) else { return try await inner.stream(request, consume) }
        // Always one logical request: a stream's cost is its body, not this push.
        return try await TransportEvents.withinRequest {
            let attempts = StreamAttempts()
            return try await withTaskCancellationHandler {
                let winner: (exchange: HandedOverExchange, head: HTTPResponseHead, body: HTTPBody)
                do {
                    winner = try await raceHeads(of: request, attempts: attempts)
                } catch {
                    await attempts.finished()
                    throw error
                }
                do {
                    let result = try await consume(winner.head, winner.body)
                    winner.exchange.release()
                    await attempts.finished()
                    return result
                } catch {
                    winner.exchange.release()
                    await attempts.finished()
                    throw error
                }
            } onCancel: {
                attempts.cancelAll()
            }
        }
    }

    /// Starts the first attempt and the hedges the policy allows, each in its own exchange, and
    /// returns the first that got a head; the others are cancelled.
    private nonisolated(nonsending) func raceHeads(
        of request: HTTPRequest, attempts: StreamAttempts
    ) async throws -> (exchange: HandedOverExchange, head: HTTPResponseHead, body: HTTPBody) {
        let plan = plan(for: request)
        let primary = attempts.start(request, through: inner)
        let outcome = await withTaskGroup(of: HedgeRaceStep<Head>.self) { group -> Swift.Result<(Int, Head), any Error> in
            group.addTask { .answered(attempt: 0, await Self.outcome { try await Head(primary.response()) }) }
            if plan.hedges > 0 { group.addTask { await timer(plan.delay, then: 1) } }
            var race = HedgeRace()
            while let step = await group.next() {
                switch step {
                case .timerCancelled:
                    continue
                case .hedgeDue(let hedge):
                    guard mayStartHedge(hedge, of: request, in: &race) else { continue }
                    // The exchange's task inherits the next attempt's number, as the event does.
                    let exchange = await TransportEvents.withNextAttempt {
                        TransportEvents.emit(
                            HedgingEvent.sent(hedge: hedge, delay: plan.delay * hedge, method: request.method, url: request.url))
                        return attempts.start(request, through: inner)
                    }
                    group.addTask { .answered(attempt: hedge, await Self.outcome { try await Head(exchange.response()) }) }
                    if hedge < plan.hedges { group.addTask { await timer(plan.delay, then: hedge + 1) } }
                case .answered(let attempt, .success(let head)):
                    // The losers' waits for a head end as their exchanges are cancelled.
                    attempts.cancelAll(except: attempt)
                    group.cancelAll()
                    finish(plan, winner: attempt, status: head.head.statusCode, race: race, request: request)
                    return .success((attempt, head))
                case .answered(let attempt, .failure(let error)):
                    guard let final = race.failed(attempt: attempt, with: error) else { continue }
                    group.cancelAll()
                    return .failure(final)
                }
            }
            return .failure(CancellationError()) // Not reached: the first attempt always reports.
        }
        if case .failure = outcome { try Task.checkCancellation() }
        let (attempt, head) = try outcome.get()
        return (attempts.exchange(attempt), head.head, head.body)
    }

    /// A response head and its body, as one attempt handed them over.
    struct Head: Sendable {
        var head: HTTPResponseHead
        var body: HTTPBody

        init(_ handedOver: (HTTPResponseHead, HTTPBody)) {
            (head, body) = handedOver
        }
    }
}
