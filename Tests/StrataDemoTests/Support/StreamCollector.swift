import Foundation
import Strata

/// Collects everything a child process writes to one pipe, on a thread of its own (blocking
/// reads never run on Swift's cooperative pool), and lets a test await a piece of text or the
/// end of the stream without polling.
final class StreamCollector: Sendable {
    private struct State {
        var data = Data()
        var ended = false
        var waiters: [(id: UUID, isSatisfied: @Sendable (Data, Bool) -> Bool, resume: CheckedContinuation<Void, Never>)] = []
    }

    private let state = LockedValue(State())

    /// Starts reading `handle` until end of stream.
    init(reading handle: FileHandle) {
        Thread { [self] in
            while case let chunk = handle.availableData, !chunk.isEmpty {
                update { $0.data.append(chunk) }
            }
            update { $0.ended = true }
        }.start()
    }

    /// What was read so far.
    var text: String { String(decoding: state.withLock { $0.data }, as: UTF8.self) }

    /// Waits until the text read contains `needle` (`true`), or the stream ended without it (`false`).
    func waitFor(_ needle: String) async -> Bool {
        await wait { data, _ in String(decoding: data, as: UTF8.self).contains(needle) }
        return text.contains(needle)
    }

    /// Waits until the stream ended (the child closed it, usually by exiting).
    func waitForEnd() async {
        await wait { _, ended in ended }
    }

    private func wait(until isSatisfied: @escaping @Sendable (Data, Bool) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let satisfied = state.withLock { state -> Bool in
                if state.ended || isSatisfied(state.data, state.ended) { return true }
                state.waiters.append((UUID(), isSatisfied, continuation))
                return false
            }
            if satisfied { continuation.resume() }
        }
    }

    private func update(_ change: (inout State) -> Void) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            change(&state)
            let (data, ended) = (state.data, state.ended)
            let ready = state.waiters.filter { ended || $0.isSatisfied(data, ended) }
            state.waiters.removeAll { ended || $0.isSatisfied(data, ended) }
            return ready.map(\.resume)
        }
        for continuation in ready { continuation.resume() }
    }
}
