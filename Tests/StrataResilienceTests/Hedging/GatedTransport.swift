import Foundation
import Strata

/// A transport whose sends each wait, numbered in arrival order (0 first), until the test
/// answers them, recording which were cancelled and, for streams, whose body was read and
/// whose exchange ended: the double for racing attempts without a clock or a network.
final class GatedTransport: Transport {
    /// How the test answers one send.
    enum Reply: Sendable {
        case response(status: Int, text: String)
        case failure(any Error)
    }

    private struct State {
        var methods: [HTTPMethod] = []
        var waiting: [Int: CheckedContinuation<Reply, any Error>] = [:]
        var early: [Int: Reply] = [:]
        var cancelledEarly: Set<Int> = []
        var sendWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var cancelled: Set<Int> = []
        var bodyReads: Set<Int> = []
        var consumed: Set<Int> = []
        var released: Set<Int> = []
    }

    private let state = LockedValue(State())

    /// How many sends began.
    var sends: Int { state.withLock { $0.methods.count } }
    /// The methods of the sends, in order.
    var methods: [HTTPMethod] { state.withLock { $0.methods } }
    /// The sends whose wait ended with `CancellationError`.
    var cancelled: Set<Int> { state.withLock { $0.cancelled } }
    /// The streamed sends whose body was iterated.
    var bodyReads: Set<Int> { state.withLock { $0.bodyReads } }
    /// The streamed sends whose `consume` was called.
    var consumed: Set<Int> { state.withLock { $0.consumed } }
    /// The streamed sends whose `consume` returned or threw: their exchange ended.
    var released: Set<Int> { state.withLock { $0.released } }

    /// Waits until at least `count` sends began.
    func waitForSends(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                guard state.methods.count < count else { return true }
                state.sendWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Answers send number `index`.
    func answer(_ index: Int, _ reply: Reply) {
        let waiter = state.withLock { state -> CheckedContinuation<Reply, any Error>? in
            guard let waiter = state.waiting.removeValue(forKey: index) else {
                state.early[index] = reply
                return nil
            }
            return waiter
        }
        waiter?.resume(returning: reply)
    }

    /// Answers send number `index` with a 200 whose body is `text`.
    func answer(_ index: Int, text: String) { answer(index, .response(status: 200, text: text)) }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let (_, reply) = try await wait(for: request)
        switch reply {
        case .response(let status, let text): return HTTPResponse(statusCode: status, body: Data(text.utf8), url: request.url)
        case .failure(let error): throw error
        }
    }

    func stream<Result: Sendable>(
        _ request: HTTPRequest, _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        let (index, reply) = try await wait(for: request)
        switch reply {
        case .response(let status, let text):
            let body = HTTPBody(
                ReadRecordingChunks(text: text) { [state] in state.withLock { _ = $0.bodyReads.insert(index) } }, length: nil)
            state.withLock { _ = $0.consumed.insert(index) }
            defer { state.withLock { _ = $0.released.insert(index) } }
            return try await consume(HTTPResponseHead(statusCode: status, url: request.url), body)
        case .failure(let error):
            throw error
        }
    }

    private func wait(for request: HTTPRequest) async throws -> (Int, Reply) {
        let (index, waiters) = state.withLock { state -> (Int, [CheckedContinuation<Void, Never>]) in
            state.methods.append(request.method)
            let count = state.methods.count
            let ready = state.sendWaiters.filter { $0.count <= count }.map(\.continuation)
            state.sendWaiters.removeAll { $0.count <= count }
            return (count - 1, ready)
        }
        for waiter in waiters { waiter.resume() }
        do {
            let reply = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Reply, any Error>) in
                    let ready = state.withLock { state -> Swift.Result<Reply, any Error>? in
                        if state.cancelledEarly.remove(index) != nil { return .failure(CancellationError()) }
                        if let reply = state.early.removeValue(forKey: index) { return .success(reply) }
                        state.waiting[index] = continuation
                        return nil
                    }
                    if let ready { continuation.resume(with: ready) }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Reply, any Error>? in
                    guard let waiter = state.waiting.removeValue(forKey: index) else {
                        state.cancelledEarly.insert(index)
                        return nil
                    }
                    return waiter
                }
                waiter?.resume(throwing: CancellationError())
            }
            return (index, reply)
        } catch {
            if error is CancellationError { state.withLock { _ = $0.cancelled.insert(index) } }
            throw error
        }
    }
}

/// One chunk of text, reporting when it is first asked for.
struct ReadRecordingChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let text: String
    let onRead: @Sendable () -> Void

    struct AsyncIterator: AsyncIteratorProtocol {
        var chunk: ArraySlice<UInt8>?
        let onRead: @Sendable () -> Void

        mutating func next() async throws -> ArraySlice<UInt8>? {
            onRead()
            defer { chunk = nil }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunk: ArraySlice(Array(text.utf8)), onRead: onRead) }
}
