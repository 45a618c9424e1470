/// A bounded hand-over of elements from one producing task to one consuming task, with
/// backpressure: ``send(_:)`` waits while ``capacity`` elements wait unread, so a fast producer
/// (a body parsed as it arrives) holds at most that many elements for a slow consumer.
///
/// Either side may leave: the producer with ``finish(throwing:)``, the consumer with
/// ``consumerLeft()`` (its task was cancelled, or it stopped iterating), after which every
/// ``send(_:)`` throws `CancellationError` so the producer unwinds at once.
///
/// `@unchecked Sendable` is not needed: all state sits behind a ``LockedValue``.
final class ElementHandoff<Element: Sendable>: Sendable {
    private struct State {
        var buffer: [Element] = []
        var end: Result<Void, any Error>?
        var consumerGone = false
        var consumer: CheckedContinuation<Element?, any Error>?
        var producer: CheckedContinuation<Void, any Error>?
    }

    private enum Delivery {
        case handed(CheckedContinuation<Element?, any Error>)
        case buffered
        case full
        case consumerGone
    }

    /// The most elements that wait unread before ``send(_:)`` waits.
    let capacity: Int
    private let state = LockedValue(State())

    /// Creates a hand-over holding at most `capacity` unread elements (at least one).
    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    // MARK: Producer

    /// Hands `element` to the consumer, waiting while the buffer is full.
    ///
    /// - Throws: `CancellationError` when the consumer left or the producing task is cancelled.
    func send(_ element: Element) async throws {
        while true {
            try Task.checkCancellation()
            let delivery = state.withLock { state -> Delivery in
                if state.consumerGone { return .consumerGone }
                if let consumer = state.consumer {
                    state.consumer = nil
                    return .handed(consumer)
                }
                guard state.buffer.count < capacity else { return .full }
                state.buffer.append(element)
                return .buffered
            }
            switch delivery {
            case .handed(let consumer): return consumer.resume(returning: element)
            case .buffered: return
            case .consumerGone: throw CancellationError()
            case .full: try await waitForRoom()
            }
        }
    }

    /// Waits until the consumer takes an element or leaves, or the producing task is cancelled.
    private func waitForRoom() async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { state -> Bool in
                    if state.consumerGone || state.buffer.count < capacity || Task.isCancelled { return true }
                    state.producer = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            takeProducer()?.resume(throwing: CancellationError())
        }
    }

    /// Ends the elements: after the buffered ones, the consumer gets the end, or `error`.
    func finish(throwing error: (any Error)? = nil) {
        let consumer = state.withLock { state -> CheckedContinuation<Element?, any Error>? in
            guard state.end == nil else { return nil }
            guard let consumer = state.consumer else {
                state.end = error.map { .failure($0) } ?? .success(())
                return nil
            }
            // A parked consumer means an empty buffer: it gets the end now, and nil after it.
            state.consumer = nil
            state.end = .success(())
            return consumer
        }
        guard let consumer else { return }
        if let error { consumer.resume(throwing: error) } else { consumer.resume(returning: nil) }
    }

    // MARK: Consumer

    /// The next element, waiting for one; `nil` after the end (and after the end's error, which
    /// is thrown once).
    ///
    /// - Throws: What the producer finished with, or `CancellationError` when the consuming task
    ///   is cancelled while it waits.
    func next() async throws -> Element? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Element?, any Error>) in
                let (outcome, producer) = state.withLock { state -> (Result<Element?, any Error>?, CheckedContinuation<Void, any Error>?) in
                    if !state.buffer.isEmpty {
                        let element = state.buffer.removeFirst()
                        defer { state.producer = nil }
                        return (.success(element), state.producer)
                    }
                    if let end = state.end {
                        state.end = .success(()) // An error is reported once; then the sequence is over.
                        return (end.map { nil }, nil)
                    }
                    if Task.isCancelled { return (.failure(CancellationError()), nil) }
                    state.consumer = continuation
                    return (nil, nil)
                }
                producer?.resume()
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let consumer = state.withLock { state in
                defer { state.consumer = nil }
                return state.consumer
            }
            consumer?.resume(throwing: CancellationError())
        }
    }

    /// The consumer is gone: drops what is buffered and makes the producer's sends throw
    /// `CancellationError`, waking a producer that waits for room.
    func consumerLeft() {
        let producer = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            state.consumerGone = true
            state.buffer = []
            defer { state.producer = nil }
            return state.producer
        }
        producer?.resume(throwing: CancellationError())
    }

    /// Whether the producer waits for room (for tests).
    var isProducerWaiting: Bool { state.withLock { $0.producer != nil } }

    private func takeProducer() -> CheckedContinuation<Void, any Error>? {
        state.withLock { state in
            defer { state.producer = nil }
            return state.producer
        }
    }
}
