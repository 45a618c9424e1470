import Strata

/// The streamed attempts of one hedged request, each a ``HandedOverExchange`` in its own task,
/// numbered in the order started (0 for the first): what the request's cancellation handler and
/// its winner cancel.
final class StreamAttempts: Sendable {
    private struct State {
        var exchanges: [HandedOverExchange] = []
        var cancelled = false
    }

    private let state = LockedValue(State())

    /// Starts `request` through `inner.stream` as the next attempt; an attempt started after
    /// ``cancelAll(except:)`` without a winner (the caller was cancelled) is cancelled at once.
    func start(_ request: HTTPRequest, through inner: any Transport) -> HandedOverExchange {
        let exchange = HandedOverExchange.start(request, through: inner)
        let cancelled = state.withLock { state -> Bool in
            state.exchanges.append(exchange)
            return state.cancelled
        }
        if cancelled { exchange.cancel() }
        return exchange
    }

    /// The attempt numbered `attempt`.
    func exchange(_ attempt: Int) -> HandedOverExchange {
        state.withLock { $0.exchanges[attempt] }
    }

    /// Cancels every attempt but `winner` (every attempt when `nil`): their transports stop and
    /// close their connections, their bodies never read. Attempts started later are cancelled
    /// as they start only when there is no winner.
    func cancelAll(except winner: Int? = nil) {
        let losers = state.withLock { state -> [HandedOverExchange] in
            if winner == nil { state.cancelled = true }
            return state.exchanges.enumerated().filter { $0.offset != winner }.map(\.element)
        }
        for loser in losers { loser.cancel() }
    }

    /// Waits until every attempt's task has finished.
    func finished() async {
        for exchange in state.withLock({ $0.exchanges }) { await exchange.finished() }
    }
}
