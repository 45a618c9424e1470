import Dispatch
import Strata
import StrataConnect

/// A request body (a file or a stream) handed from the caller's side to a connection thread a few
/// chunks at a time: the body is read by a task (file reads already leave the cooperative pool),
/// the connection thread blocks on its own thread until a chunk is there, and the task waits
/// while ``maxQueuedChunks`` are unwritten. So at most that many chunks are held, whatever the
/// body's size, and the body is never collected.
///
/// Reading starts when the connection asks for the first chunk, so a request that never reaches
/// the wire (its connection failed, or it went over HTTP/2) has not iterated its body. A
/// replayable body can be read again from the start with ``restart()`` (a resend on a fresh
/// connection); a single-pass one cannot, and the pool never resends it.
final class RequestBodyPipe: HTTP1RequestBodySource {
    /// The most chunks read ahead of the connection. With file chunks of 128 KiB, 512 KiB.
    static let maxQueuedChunks = 4

    private struct State {
        var queue: [ArraySlice<UInt8>] = []
        var end: Result<Void, HTTPBodyError>?
        var closed = false
        var started = false
        /// Bumped by ``restart()`` so a reader task of an earlier pass stops adding.
        var generation = 0
        var reader: Task<Void, Never>?
        /// The reader task, waiting for room in the queue.
        var space: CheckedContinuation<Void, Never>?
    }

    /// The body being sent.
    let body: HTTPBody
    private let state = LockedValue(State())
    /// Signalled for every chunk queued and at the end; waits re-check the state, so a surplus
    /// signal is harmless.
    private let available = DispatchSemaphore(value: 0)

    /// Creates a pipe for `body`; nothing is read yet.
    init(_ body: HTTPBody) {
        self.body = body
    }

    /// Whether the body can be read again from the start for a resend.
    var isReplayable: Bool { body.isReplayable }

    /// Whether reading has started: some of the body may be on the wire.
    var hasStarted: Bool { state.withLock { $0.started } }

    // MARK: On the connection's thread

    func next(deadline: ContinuousClock.Instant) throws(TransportError) -> ArraySlice<UInt8>? {
        startIfNeeded()
        while true {
            let outcome = state.withLock { state -> (Result<ArraySlice<UInt8>?, TransportError>?, CheckedContinuation<Void, Never>?) in
                if state.closed {
                    return (.failure(TransportError(.other, message: "the request body was abandoned: the exchange ended")), nil)
                }
                if !state.queue.isEmpty {
                    let chunk = state.queue.removeFirst()
                    defer { state.space = nil }
                    return (.success(chunk), state.space)
                }
                switch state.end {
                case .success?: return (.success(nil), nil)
                case .failure(let error)?:
                    let refusal = HTTPRequestError.unreadableBody(error)
                    return (.failure(TransportError(.invalidRequest, message: refusal.description, underlying: refusal)), nil)
                case nil: return (nil, nil)
                }
            }
            outcome.1?.resume()
            if let result = outcome.0 { return try result.get() }
            let left = (deadline - .now).saturatingNanoseconds
            guard left > 0, available.wait(timeout: .now() + .nanoseconds(Int(clamping: left))) == .success else {
                throw TransportError(.timedOut, message: "the whole-request deadline passed while the request body was being read")
            }
        }
    }

    // MARK: On any thread

    /// Forgets what was read and makes the next ``next(deadline:)`` read the body from the start.
    /// Only for a replayable body.
    func restart() {
        precondition(body.isReplayable, "a single-pass body is never sent twice")
        let (reader, space) = state.withLock { state -> (Task<Void, Never>?, CheckedContinuation<Void, Never>?) in
            defer {
                state = State(generation: state.generation + 1)
            }
            return (state.reader, state.space)
        }
        reader?.cancel()
        space?.resume()
    }

    /// Stops reading the body: the exchange is over (or abandoned). Idempotent.
    func close() {
        let (reader, space) = state.withLock { state -> (Task<Void, Never>?, CheckedContinuation<Void, Never>?) in
            state.closed = true
            state.queue = []
            defer { state.space = nil }
            return (state.reader, state.space)
        }
        reader?.cancel()
        space?.resume()
        available.signal()
    }

    // MARK: The reader task

    private func startIfNeeded() {
        let generation = state.withLock { state -> Int? in
            guard !state.started, !state.closed else { return nil }
            state.started = true
            return state.generation
        }
        guard let generation else { return }
        // A task of its own: the connection's thread cannot await, and the body's chunks (a
        // user's AsyncSequence, file reads hopping to Dispatch) are produced in async code.
        let reader = Task { [self] in await read(generation: generation) }
        let stale = state.withLock { state -> Bool in
            guard state.generation == generation, !state.closed else { return true }
            state.reader = reader
            return false
        }
        if stale { reader.cancel() }
    }

    private func read(generation: Int) async {
        var end: Result<Void, HTTPBodyError>
        do {
            for try await chunk in body {
                guard await room(generation: generation) else { return }
                let accepted = state.withLock { state -> Bool in
                    guard state.generation == generation, !state.closed else { return false }
                    state.queue.append(chunk)
                    return true
                }
                guard accepted else { return }
                available.signal()
            }
            end = .success(())
        } catch let error as HTTPBodyError {
            end = .failure(error)
        } catch {
            end = .failure(.unreadableStream(reason: String(describing: error)))
        }
        let ended = state.withLock { state -> Bool in
            guard state.generation == generation, !state.closed else { return false }
            state.end = end
            return true
        }
        if ended { available.signal() }
    }

    /// Waits until the queue has room; false when this pass is over (closed or restarted).
    private func room(generation: Int) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waits = state.withLock { state -> Bool in
                guard state.generation == generation, !state.closed,
                    state.queue.count >= Self.maxQueuedChunks
                else { return false }
                state.space = continuation
                return true
            }
            if !waits { continuation.resume() }
        }
        return state.withLock { $0.generation == generation && !$0.closed }
    }
}
