import Strata

/// Resumes the caller of one exchange exactly once, with whichever comes first: the job's
/// report (on the connection's thread) or the caller's cancellation (at once, without waiting
/// for the job, which still finishes and returns its connection to the pool).
final class ExchangeCompletion: Sendable {
    private enum State {
        case waiting
        case installed(CheckedContinuation<ExchangeReport, any Error>)
        case finished(Result<ExchangeReport, any Error>)
        case resumed
    }

    private let state = LockedValue(State.waiting)

    /// Hands over the caller's continuation; resumes it at once if the outcome is already known.
    func install(_ continuation: CheckedContinuation<ExchangeReport, any Error>) {
        let ready = state.withLock { state -> Result<ExchangeReport, any Error>? in
            guard case let .finished(result) = state else {
                state = .installed(continuation)
                return nil
            }
            state = .resumed
            return result
        }
        if let ready { continuation.resume(with: ready) }
    }

    /// Delivers the outcome; only the first call counts.
    func finish(_ result: Result<ExchangeReport, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<ExchangeReport, any Error>? in
            switch state {
            case .waiting:
                state = .finished(result)
                return nil
            case let .installed(continuation):
                state = .resumed
                return continuation
            case .finished, .resumed:
                return nil
            }
        }
        continuation?.resume(with: result)
    }
}
