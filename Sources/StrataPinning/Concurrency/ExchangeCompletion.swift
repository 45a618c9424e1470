import Strata

/// Resumes the caller of one exchange exactly once, with whichever comes first: the outcome
/// (delivered on a connection's thread) or the caller's cancellation (at once, without waiting
/// for the exchange, which still finishes and gives its connection or stream back).
final class ExchangeCompletion<Value: Sendable>: Sendable {
    private enum State {
        case waiting
        case installed(CheckedContinuation<Value, any Error>)
        case finished(Result<Value, any Error>)
        case resumed
    }

    private let state = LockedValue(State.waiting)

    /// Hands over the caller's continuation; resumes it at once if the outcome is already known.
    func install(_ continuation: CheckedContinuation<Value, any Error>) {
        let ready = state.withLock { state -> Result<Value, any Error>? in
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
    ///
    /// - Returns: Whether this call's outcome is the one the caller gets.
    @discardableResult
    func finish(_ result: Result<Value, any Error>) -> Bool {
        let (delivered, continuation) = state.withLock { state -> (Bool, CheckedContinuation<Value, any Error>?) in
            switch state {
            case .waiting:
                state = .finished(result)
                return (true, nil)
            case let .installed(continuation):
                state = .resumed
                return (true, continuation)
            case .finished, .resumed:
                return (false, nil)
            }
        }
        continuation?.resume(with: result)
        return delivered
    }
}
