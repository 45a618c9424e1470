import Strata

/// One streamed exchange run in a task of its own, whose response head and body are handed to
/// the task that asks for them: what a layer needs to race a stream against a timer (a
/// per-attempt timeout) or against another attempt (a hedge), since the caller's `consume`
/// closure cannot leave the caller's task.
///
/// The exchange's task runs `inner.stream`; its `consume` hands the head and body over and then
/// holds the exchange open until ``release()``, so the body can be read from the caller's task
/// with backpressure down to the socket, exactly as if the caller had called `stream` itself.
/// ``cancel()`` ends the exchange wherever it is: a loser's connection is closed by its
/// transport, its body never read. The task inherits the caller's task-local values (events,
/// the request's deadline).
package final class HandedOverExchange: Sendable {
    private enum Phase {
        case waiting(CheckedContinuation<(HTTPResponseHead, HTTPBody), any Error>?)
        case delivered(HTTPResponseHead, HTTPBody)
        case failed(any Error)
        case taken
    }

    private struct State {
        var phase = Phase.waiting(nil)
        var released = false
        var holder: CheckedContinuation<Void, Never>?
    }

    private let state = LockedValue(State())
    private let task = LockedValue<Task<Void, Never>?>(nil)

    private init() {}

    /// Starts `request` through `inner.stream` in a new task.
    package static func start(_ request: HTTPRequest, through inner: any Transport) -> HandedOverExchange {
        let exchange = HandedOverExchange()
        let task = Task {
            do {
                try await inner.stream(request) { head, body in
                    exchange.deliver(.success((head, body)))
                    await exchange.holdUntilReleased()
                }
                // A transport that returned without calling `consume` broke its contract; the
                // waiter must not wait forever.
                exchange.deliver(
                    .failure(
                        TransportError(.other, method: request.method, url: request.url, message: "the transport returned no response")))
            } catch {
                exchange.deliver(.failure(error))
            }
        }
        exchange.task.withLock { $0 = task }
        return exchange
    }

    /// The response head and body, as soon as the exchange has them.
    ///
    /// Cancelling the waiting task does not end the exchange (call ``cancel()``): the caller
    /// decides whether another waiter may still want it.
    ///
    /// - Throws: What `inner.stream` threw before a head arrived.
    package func response() async throws -> (HTTPResponseHead, HTTPBody) {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<(HTTPResponseHead, HTTPBody), any Error>? in
                switch state.phase {
                case .waiting:
                    state.phase = .waiting(continuation)
                    return nil
                case .delivered(let head, let body):
                    state.phase = .taken
                    return .success((head, body))
                case .failed(let error):
                    return .failure(error)
                case .taken:
                    return .failure(TransportError(.other, message: "the response was already taken"))
                }
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// Ends the exchange once its response has been read (or will not be): `inner.stream`
    /// returns, and its transport releases the connection (or closes it, for a body left unread).
    package func release() {
        let holder = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.released = true
            defer { state.holder = nil }
            return state.holder
        }
        holder?.resume()
    }

    /// Cancels the exchange's task and releases it: the transport below stops where it is.
    package func cancel() {
        task.withLock { $0 }?.cancel()
        release()
    }

    /// Waits until the exchange's task has finished (its connection released or closed).
    package func finished() async {
        await task.withLock { $0 }?.value
    }

    private func deliver(_ result: Result<(HTTPResponseHead, HTTPBody), any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<(HTTPResponseHead, HTTPBody), any Error>? in
            guard case .waiting(let waiter) = state.phase else { return nil }
            switch result {
            case .success(let (head, body)): state.phase = waiter == nil ? .delivered(head, body) : .taken
            case .failure(let error): state.phase = .failed(error)
            }
            return waiter
        }
        waiter?.resume(with: result)
    }

    private func holdUntilReleased() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let released = state.withLock { state -> Bool in
                if state.released { return true }
                state.holder = continuation
                return false
            }
            if released { continuation.resume() }
        }
    }
}
