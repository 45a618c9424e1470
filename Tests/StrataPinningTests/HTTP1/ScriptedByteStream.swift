import Foundation
import Strata
import StrataConnect
@testable import StrataPinning

/// An in-memory ``ByteStream`` that answers reads from a script, records writes and
/// closes, and never blocks: the fault-injection double for ``HTTP1Connection``.
final class ScriptedByteStream: ByteStream, Sendable {
    /// What one read returns.
    enum Step: Sendable {
        case bytes([UInt8])
        case endOfStream
        case failure(TransportError)
        /// A read would wait here: ``readWithoutWaiting(into:)`` stops at it, ``read(into:deadline:)`` goes past it.
        case pause

        static func text(_ text: String) -> Step { .bytes(Array(text.utf8)) }
    }

    private struct State {
        var script: [Step]
        var written: [UInt8] = []
        var reads = 0
        var closeCount = 0
        var writeFailure: TransportError?
    }

    private let state: LockedValue<State>

    init(_ script: [Step], writeFailure: TransportError? = nil) {
        state = LockedValue(State(script: script, writeFailure: writeFailure))
    }

    var written: String { state.withLock { String(decoding: $0.written, as: UTF8.self) } }
    var reads: Int { state.withLock { $0.reads } }
    var isClosed: Bool { state.withLock { $0.closeCount > 0 } }

    /// Appends more steps, for the next exchange.
    func append(_ steps: [Step]) { state.withLock { $0.script += steps } }

    func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant) throws(TransportError) {
        let failure: TransportError? = state.withLock { state in
            if let failure = state.writeFailure { return failure }
            state.written += Array(bytes)
            return nil
        }
        if let failure { throw failure }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant) throws(TransportError) -> Int {
        let step: Step = state.withLock { state in
            state.reads += 1
            while case .pause? = state.script.first { state.script.removeFirst() }
            guard !state.script.isEmpty, state.closeCount == 0 else { return .endOfStream }
            guard case .bytes(let bytes) = state.script[0] else { return state.script.removeFirst() }
            let count = min(bytes.count, buffer.count)
            if count == bytes.count { state.script.removeFirst() } else { state.script[0] = .bytes(Array(bytes[count...])) }
            return .bytes(Array(bytes[..<count]))
        }
        switch step {
        case .bytes(let bytes):
            bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
            return bytes.count
        case .endOfStream:
            return 0
        case .failure(let error):
            throw error
        case .pause:
            return 0
        }
    }

    /// What the next step gives without waiting, as a real stream does: its bytes, 0 at the
    /// end of the script, its failure (consumed: a reset socket then reads as an end); `nil` at
    /// a pause.
    func readWithoutWaiting(into buffer: UnsafeMutableRawBufferPointer) throws(TransportError) -> Int? {
        let step: Step? = state.withLock { state in
            guard state.closeCount == 0, let first = state.script.first else { return .endOfStream }
            switch first {
            case .pause, .endOfStream: return first
            case .failure: return state.script.removeFirst()
            case .bytes(let bytes):
                let count = min(bytes.count, buffer.count)
                if count == bytes.count { state.script.removeFirst() } else { state.script[0] = .bytes(Array(bytes[count...])) }
                return .bytes(Array(bytes[..<count]))
            }
        }
        switch step {
        case .bytes(let bytes)?:
            bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
            return bytes.count
        case .endOfStream?: return 0
        case .failure(let error)?: throw error
        case .pause?, nil: return nil
        }
    }

    func close() { state.withLock { $0.closeCount += 1 } }
}

/// Collects events from an `onEvent` hook.
final class EventRecorder: Sendable {
    private let recorded = LockedValue<[HTTP1Event]>([])
    var events: [HTTP1Event] { recorded.withLock { $0 } }
    var hook: @Sendable (HTTP1Event) -> Void { { [self] event in recorded.withLock { $0.append(event) } } }
}
