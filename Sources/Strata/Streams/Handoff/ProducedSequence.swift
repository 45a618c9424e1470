/// An `AsyncSequence` whose elements a task of its own produces, for elements that can only be
/// read inside a closure: a response body lives only within ``Transport/stream(_:_:)``'s
/// `consume`, so a sequence that outlives one call (an ``EventSource`` across reconnects, JSON
/// Lines from an endpoint) needs a task that makes the calls and hands elements over.
///
/// Each iteration starts its own producing task on its first `next()`, with the consumer's
/// task-local values (observers, a ``RequestDeadline``) and priority. The task ends as soon as
/// the consumer does: when the consuming task is cancelled (`next()` then throws
/// `CancellationError` at once) or drops its iterator (stops iterating), the producing task is
/// cancelled and every hand-over it attempts throws, so its `stream` call unwinds and releases
/// the connection. At most `capacity` elements wait unread (``ElementHandoff``).
struct ProducedSequence<Element: Sendable>: AsyncSequence, Sendable {
    typealias Failure = any Error

    /// How many elements may wait unread.
    let capacity: Int
    /// Produces every element through the hand-over; what it throws ends the sequence with that error.
    let produce: @Sendable (ElementHandoff<Element>) async throws -> Void

    func makeAsyncIterator() -> Iterator {
        Iterator(run: ProducerRun(capacity: capacity, produce: produce))
    }

    /// Reads the producing task's elements.
    struct Iterator: AsyncIteratorProtocol {
        let run: ProducerRun<Element>

        mutating func next() async throws -> Element? { try await run.next() }
    }
}

/// One iteration's producing task and its hand-over; stopping it (or dropping it) cancels the task.
final class ProducerRun<Element: Sendable>: Sendable {
    private let handoff: ElementHandoff<Element>
    private let produce: @Sendable (ElementHandoff<Element>) async throws -> Void
    private let task = LockedValue<(started: Bool, task: Task<Void, Never>?)>((false, nil))

    init(capacity: Int, produce: @escaping @Sendable (ElementHandoff<Element>) async throws -> Void) {
        handoff = ElementHandoff(capacity: capacity)
        self.produce = produce
    }

    deinit { stop() }

    /// The next element; starts the producing task on the first call.
    ///
    /// - Throws: What the producer threw, or `CancellationError` when the calling task is
    ///   cancelled (the producing task is cancelled with it).
    func next() async throws -> Element? {
        guard !Task.isCancelled else {
            stop()
            throw CancellationError()
        }
        startIfNeeded()
        return try await withTaskCancellationHandler {
            try await handoff.next()
        } onCancel: {
            stop()
        }
    }

    /// Cancels the producing task and tells the hand-over the consumer left.
    func stop() {
        task.withLock { state in
            state.started = true // A run stopped before it started never starts.
            return state.task
        }?.cancel()
        handoff.consumerLeft()
    }

    private func startIfNeeded() {
        task.withLock { state in
            guard !state.started else { return }
            state.started = true
            state.task = Task { [handoff, produce] in
                do {
                    try await produce(handoff)
                    handoff.finish()
                } catch {
                    handoff.finish(throwing: error)
                }
            }
        }
    }
}
