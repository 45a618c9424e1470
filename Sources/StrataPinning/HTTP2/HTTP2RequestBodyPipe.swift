import Foundation
import Strata

/// The bounded hand-over of a streamed request body from the caller's task to an HTTP/2
/// connection's thread, with backpressure both ways.
///
/// The caller's task runs ``feed(from:)``: it reads the `HTTPBody` chunk by chunk and waits
/// (suspended, never blocking a thread) while more than ``maxQueuedBytes`` wait unsent. The
/// connection's thread pulls with ``read(into:)`` from nghttp2's data provider; when nothing is
/// queued it gets ``Read/wait`` (the provider defers the stream) and ``onAvailable`` fires once
/// the next chunk, the end or a failure arrives, so the stream is resumed. So at most
/// `maxQueuedBytes` plus one chunk of the body sit in memory, whatever its size.
///
/// ``close()`` (the stream ended: response complete, reset, or cancelled) makes the feeder stop.
final class HTTP2RequestBodyPipe: Sendable {
    /// Unsent bytes above which the feeder waits: four 16 KiB DATA frames' worth, enough to keep
    /// a window's worth of frames coming without holding a large body in memory.
    static let maxQueuedBytes = 64 * 1024

    /// What the connection's thread gets from ``read(into:)``.
    enum Read: Equatable {
        /// `count` bytes were copied; `end` when they were the last.
        case bytes(count: Int, end: Bool)
        /// Nothing queued yet: defer the stream until ``onAvailable`` fires.
        case wait
        /// Reading the body failed; the stream must be abandoned with the error from ``failure``.
        case failed
    }

    private struct State {
        var chunks: [ArraySlice<UInt8>] = []
        var queuedBytes = 0
        var finished = false
        var failure: TransportError?
        var closed = false
        /// The connection's thread found nothing and waits for ``onAvailable``.
        var readerWaiting = false
        var writer: CheckedContinuation<Void, Never>?
        var onAvailable: (@Sendable () -> Void)?

        /// The wake-up owed to a connection thread that found nothing to read, at most once per wait.
        mutating func takeWakeUp() -> (@Sendable () -> Void)? {
            guard readerWaiting else { return nil }
            readerWaiting = false
            return onAvailable
        }
    }

    private let state = LockedValue(State())

    init() {}

    /// Sets what wakes the connection's thread when a chunk, the end or a failure arrives
    /// after a ``read(into:)`` found nothing. Set before the stream is submitted.
    func onAvailable(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.onAvailable = handler }
    }

    /// Why reading the body failed, once ``read(into:)`` returned ``Read/failed``.
    var failure: TransportError? { state.withLock { $0.failure } }

    // MARK: - The caller's task

    /// Reads `body` into the pipe as the connection takes it, then marks the end; stops early
    /// (without error) once the stream is closed.
    ///
    /// - Throws: `CancellationError` when the task is cancelled (the caller abandons the
    ///   exchange). A body that cannot be read (a length mismatch, a failing file or sequence)
    ///   is not thrown here: it fails the pipe, and so the exchange, with a typed
    ///   `TransportError` ``TransportError/Kind/invalidRequest``.
    func feed(from body: HTTPBody, method: HTTPMethod, url: URL?) async throws {
        do {
            for try await chunk in body {
                try Task.checkCancellation()
                guard await write(chunk) else { return }
            }
            end(nil)
        } catch is CancellationError {
            // A failure, not an end: a body cut short must never go out with END_STREAM.
            end(TransportError(.other, method: method, url: url, message: "the request was cancelled while its body was sent",
                               underlying: CancellationError()))
            throw CancellationError()
        } catch {
            end(TransportError(.invalidRequest, method: method, url: url,
                               message: "the request body could not be read: \(error)", underlying: error))
        }
    }

    /// Queues `chunk`, waiting while the queue is full.
    ///
    /// - Returns: Whether the stream still wants the body.
    private func write(_ chunk: ArraySlice<UInt8>) async -> Bool {
        guard !chunk.isEmpty else { return !state.withLock { $0.closed } }
        // Waits for room first; room is made by the connection's thread (or by close()).
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                guard !state.closed, state.queuedBytes >= Self.maxQueuedBytes else { return true }
                state.writer = continuation
                return false
            }
            if ready { continuation.resume() }
        }
        let (accepted, wake) = state.withLock { state -> (Bool, (@Sendable () -> Void)?) in
            guard !state.closed else { return (false, nil) }
            state.chunks.append(chunk)
            state.queuedBytes += chunk.count
            return (true, state.takeWakeUp())
        }
        wake?()
        return accepted
    }

    /// Marks the end of the body, or its failure.
    private func end(_ failure: TransportError?) {
        let wake = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.finished else { return nil }
            state.finished = true
            state.failure = failure
            return state.takeWakeUp()
        }
        wake?()
    }

    // MARK: - The connection's thread

    /// Copies queued bytes into `buffer` (never blocks).
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Read {
        let (read, writer) = state.withLock { state -> (Read, CheckedContinuation<Void, Never>?) in
            if state.failure != nil { return (.failed, nil) }
            var copied = 0
            while copied < buffer.count, !state.chunks.isEmpty {
                let chunk = state.chunks[0]
                let count = min(chunk.count, buffer.count - copied)
                chunk.prefix(count).withUnsafeBytes { bytes in
                    UnsafeMutableRawBufferPointer(rebasing: buffer[copied..<(copied + count)]).copyMemory(from: bytes)
                }
                copied += count
                if count == chunk.count { state.chunks.removeFirst() } else { state.chunks[0] = chunk.dropFirst(count) }
            }
            state.queuedBytes -= copied
            var writer: CheckedContinuation<Void, Never>?
            if state.queuedBytes < Self.maxQueuedBytes {
                writer = state.writer
                state.writer = nil
            }
            let end = state.finished && state.chunks.isEmpty
            if copied == 0, !end {
                state.readerWaiting = true
                return (.wait, writer)
            }
            return (.bytes(count: copied, end: end), writer)
        }
        writer?.resume()
        return read
    }

    /// The stream ended: the feeder stops at its next chunk, and what is queued is dropped.
    func close() {
        let writer = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.closed = true
            state.chunks = []
            state.queuedBytes = 0
            defer { state.writer = nil }
            return state.writer
        }
        writer?.resume()
    }
}
