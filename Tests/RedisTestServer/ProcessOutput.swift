import Foundation
import Strata

/// A child process's output, read line by line on a thread of its own until end of file (so
/// the pipe never fills and blocks the child), with a way to wait for a given line.
public final class ProcessOutput: Sendable {
    private struct State {
        var lines: [String] = []
        var ended = false
    }

    private let state = LockedValue(State())
    private let changed = DispatchSemaphore(value: 0)

    /// Starts reading `handle`.
    public init(_ handle: FileHandle) {
        Thread { [self] in read(handle) }.start()
    }

    /// Every complete line read so far.
    public var lines: [String] { state.withLock { $0.lines } }

    /// The lines read so far, joined.
    public var text: String { lines.joined(separator: "\n") }

    /// Blocks until a line containing `text` has been read (true), or the output ends or
    /// `timeout` seconds pass first (false). Call it off the cooperative pool.
    public func waitForLine(containing text: String, timeout: Double) -> Bool {
        let deadline = DispatchTime.now() + timeout
        while true {
            let (found, ended) = state.withLock { state in (state.lines.contains { $0.contains(text) }, state.ended) }
            if found { return true }
            if ended || changed.wait(timeout: deadline) == .timedOut { return false }
        }
    }

    private func read(_ handle: FileHandle) {
        var pending = Data()
        while case let chunk = handle.availableData, !chunk.isEmpty {
            pending.append(chunk)
            while let newline = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                state.withLock { $0.lines.append(line) }
                changed.signal()
            }
        }
        state.withLock { $0.ended = true }
        changed.signal()
    }
}
