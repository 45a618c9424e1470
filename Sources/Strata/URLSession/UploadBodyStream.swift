#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// A single-pass request body as the `InputStream` FoundationNetworking reads an upload from,
/// fed one chunk at a time by a task iterating the ``HTTPBody``: at most one chunk is held, and
/// the feeding task waits until libcurl has taken it (backpressure).
///
/// Linux: `Stream.getBoundStreams` does not exist in swift-corelibs-foundation (it is compiled
/// out), and FoundationNetworking reads a body stream synchronously on its session's work queue,
/// taking `hasBytesAvailable == false` or a `read` of 0 as the end of the body. So `read` blocks
/// until a chunk or the end arrives. That blocks the session's one work queue, which is why
/// ``URLSessionTransport`` sends such a body on a session of its own, and why ``abort()`` must be
/// called before the task is cancelled (`URLSessionTask.cancel()` waits on that queue).
final class UploadBodyStream: @unchecked Sendable {
    // @unchecked: every stored var below is read and written only while `condition` is locked.
    private let condition = NSCondition()
    private var chunk: ArraySlice<UInt8>?
    private var producer: CheckedContinuation<Void, Never>?
    private var ended = false
    private var aborted = false

    /// A new `InputStream` reading this body, for `URLRequest.httpBodyStream`.
    func makeInputStream() -> InputStream { Reader(self) }

    /// `true` until every byte was read. After ``abort()`` it stays `true`, so FoundationNetworking
    /// calls `read`, gets -1 and fails the upload: `false` would end the chunked body cleanly and
    /// the server would take a truncated body for a whole one.
    fileprivate var hasBytesAvailable: Bool { condition.withLock { aborted || !ended || chunk != nil } }

    /// Blocks (on FoundationNetworking's work queue, never a cooperative thread) until bytes, the
    /// end (0) or an abort (-1).
    fileprivate func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        condition.lock()
        while chunk == nil && !ended && !aborted { condition.wait() }
        if aborted {
            condition.unlock()
            return -1
        }
        guard let current = chunk else {
            condition.unlock()
            return 0
        }
        let count = min(length, current.count)
        current.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: count) }
        var taken: CheckedContinuation<Void, Never>?
        if count == current.count {
            chunk = nil
            taken = producer
            producer = nil
        } else {
            chunk = current.dropFirst(count)
        }
        condition.unlock()
        taken?.resume()
        return count
    }

    /// Feeds `body` to the reader chunk by chunk, each after the previous one was taken. On a
    /// failure of the body, calls `failed` (which records the error for the task) and aborts.
    func pump(_ body: HTTPBody, failed: @Sendable (any Error) -> Void) async {
        do {
            for try await next in body where !next.isEmpty {
                guard await offer(next) else { return }
            }
            condition.withLock {
                ended = true
                condition.broadcast()
            }
        } catch {
            failed(error)
            abort()
        }
    }

    /// Hands `next` to the reader and waits until it took all of it; `false` once aborted.
    private func offer(_ next: ArraySlice<UInt8>) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            condition.lock()
            guard !aborted else {
                condition.unlock()
                return continuation.resume()
            }
            chunk = next
            producer = continuation
            condition.broadcast()
            condition.unlock()
        }
        return condition.withLock { !aborted }
    }

    /// Fails the reader's next `read` and releases the feeding task: the exchange is over.
    func abort() {
        let waiting = condition.withLock { () -> CheckedContinuation<Void, Never>? in
            aborted = true
            chunk = nil
            condition.broadcast()
            defer { producer = nil }
            return producer
        }
        waiting?.resume()
    }
}

/// The `InputStream` face of an ``UploadBodyStream``: what FoundationNetworking calls.
private final class Reader: InputStream {
    private let body: UploadBodyStream
    private var status: Stream.Status = .notOpen

    init(_ body: UploadBodyStream) {
        self.body = body
        super.init(data: Data())
    }

    // FoundationNetworking opens, reads and closes the stream on its work queue, one call at a time.
    override func open() { status = .open }
    override func close() { status = .closed }
    override var streamStatus: Stream.Status { status }
    override var streamError: (any Error)? { nil }
    override var hasBytesAvailable: Bool { body.hasBytesAvailable }
    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        body.read(buffer, maxLength: length)
    }
}
