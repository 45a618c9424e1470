import Foundation
import Strata

/// The bounded hand-over of a streamed request body (a file or a stream) to an HTTP/2
/// connection's thread, with backpressure both ways.
///
/// The connection's thread pulls with ``read(into:)`` from nghttp2's data provider, which asks
/// only as far as flow control lets a DATA frame go out. The first pull starts a task of the
/// pipe's own that reads the `HTTPBody` chunk by chunk and waits (suspended, never blocking a
/// thread) while more than ``maxQueuedBytes`` wait unsent. When nothing is queued the thread
/// gets ``Read/wait`` (the provider defers the stream) and ``onAvailable`` fires once the next
/// chunk, the end or a failure arrives, so the stream is resumed. So at most `maxQueuedBytes`
/// plus a chunk or two of the body sit in memory, whatever its size.
///
/// Nothing of the body is read before nghttp2 asks for its first DATA frame: a request that
/// never reached the wire (its connection closed first) leaves even a single-pass body unread,
/// so it can still be sent elsewhere (``hasStarted``). A resend of a body already read needs a
/// new pipe, and a replayable body (``isReplayable``).
///
/// ``close()`` (the stream ended: response complete, reset, cancelled or given up on) stops the
/// reading task; what is queued is dropped, and the body is never marked complete after it.
final class HTTP2RequestBodyPipe: Sendable {
    /// Unsent bytes above which the reading task waits: four 16 KiB DATA frames' worth, enough
    /// to keep a window's worth of frames coming without holding a large body in memory.
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
        var started = false
        var reader: Task<Void, Never>?
        /// The connection's thread found nothing and waits for ``onAvailable``.
        var threadWaiting = false
        /// The reading task, waiting for room in the queue.
        var writer: CheckedContinuation<Void, Never>?
        var onAvailable: (@Sendable () -> Void)?

        /// The wake-up owed to a connection thread that found nothing to read, at most once per wait.
        mutating func takeWakeUp() -> (@Sendable () -> Void)? {
            guard threadWaiting else { return nil }
            threadWaiting = false
            return onAvailable
        }
    }

    /// The body being sent.
    let body: HTTPBody
    /// The request's method and URL, for the errors a failing body produces.
    private let method: HTTPMethod
    private let url: URL?
    private let state = LockedValue(State())

    /// Creates a pipe for `body`; nothing is read until the connection's first ``read(into:)``.
    init(_ body: HTTPBody, method: HTTPMethod, url: URL?) {
        self.body = body
        self.method = method
        self.url = url
    }

    /// Sets what wakes the connection's thread when a chunk, the end or a failure arrives
    /// after a ``read(into:)`` found nothing. Set before the stream is submitted.
    func onAvailable(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.onAvailable = handler }
    }

    /// Whether the body can be read again from the start, through a new pipe, for a resend.
    var isReplayable: Bool { body.isReplayable }

    /// Whether reading the body has started: some of it may be on the wire, and a single-pass
    /// body can never be sent again.
    var hasStarted: Bool { state.withLock { $0.started } }

    /// Whether the connection waits for the caller's body (it found nothing queued): the stream
    /// is idle because of the caller, not the server.
    var isWaitingForBody: Bool { state.withLock { $0.threadWaiting && !$0.closed } }

    /// Why reading the body failed, once ``read(into:)`` returned ``Read/failed``.
    var failure: TransportError? { state.withLock { $0.failure } }

    // MARK: - The connection's thread

    /// Copies queued bytes into `buffer` (never blocks); the first call starts reading the body.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Read {
        let (read, writer, start) = state.withLock { state -> (Read, CheckedContinuation<Void, Never>?, Bool) in
            if state.failure != nil { return (.failed, nil, false) }
            // A closed pipe's stream is being reset: nothing more goes out for it.
            if state.closed { return (.wait, nil, false) }
            let start = !state.started
            state.started = true
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
                state.threadWaiting = true
                return (.wait, writer, start)
            }
            return (.bytes(count: copied, end: end), writer, start)
        }
        writer?.resume()
        if start { startReading() }
        return read
    }

    /// The stream ended: the reading task stops at its next chunk, and what is queued is
    /// dropped. Idempotent; the body is never marked complete after it.
    func close() {
        let (reader, writer) = state.withLock { state -> (Task<Void, Never>?, CheckedContinuation<Void, Never>?) in
            state.closed = true
            state.chunks = []
            state.queuedBytes = 0
            defer { state.writer = nil }
            return (state.reader, state.writer)
        }
        reader?.cancel()
        writer?.resume()
    }

    // MARK: - The reading task

    private func startReading() {
        // A task of its own: the connection's thread cannot await, and the body's chunks (a
        // user's AsyncSequence, file reads hopping to Dispatch) are produced in async code.
        let reader = Task { [self] in await feed() }
        let closed = state.withLock { state -> Bool in
            guard !state.closed else { return true }
            state.reader = reader
            return false
        }
        if closed { reader.cancel() }
    }

    /// Reads the body into the pipe as the connection takes it, then marks the end; stops early
    /// once the pipe is closed. A body that cannot be read (a length mismatch, a failing file or
    /// sequence) fails the pipe, and so the exchange, with a typed `TransportError`
    /// ``TransportError/Kind/invalidRequest``, as over HTTP/1.1.
    private func feed() async {
        let end: Result<Void, HTTPBodyError>
        do {
            for try await chunk in body {
                guard await write(chunk) else { return }
            }
            end = .success(())
        } catch let error as HTTPBodyError {
            end = .failure(error)
        } catch {
            end = .failure(.unreadableStream(reason: String(describing: error)))
        }
        switch end {
        case .success: finish(nil)
        case let .failure(error):
            let refusal = HTTPRequestError.unreadableBody(error)
            finish(TransportError(.invalidRequest, method: method, url: url, message: refusal.description, underlying: refusal))
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

    /// Marks the end of the body, or its failure, unless the pipe was closed: a body cut short
    /// by the close (a cancelled read may look like an end) must never go out as complete.
    private func finish(_ failure: TransportError?) {
        let wake = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.finished, !state.closed else { return nil }
            state.finished = true
            state.failure = failure
            return state.takeWakeUp()
        }
        wake?()
    }
}
