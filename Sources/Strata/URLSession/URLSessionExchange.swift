#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Dispatch
import Foundation

/// One request on the wire for ``URLSessionTransport``: its URLSession task and the timer that
/// ends it at the whole-request deadline. One owner for both, ended by ``end()`` whatever
/// happened, so neither outlives the call that made it.
final class URLSessionExchange: Sendable {
    let task: URLSessionTask
    /// The request as URLSession sends it, without a body URLSession holds (a file or a stream).
    let foundation: URLRequest
    private let delegate: SessionDelegate
    private let cancels: DispatchQueue
    /// The deadline's timer (a `DispatchWorkItem`, not `Sendable`: reached only under the lock).
    private let timer: LockedValue<DispatchWorkItem>

    /// Creates the task for `request`, whose body is bytes or a file (a single-pass body was read
    /// into memory before: ``URLSessionTransport/withBodyInMemoryIfSinglePass(_:)``), without
    /// starting it.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled, ``TransportError`` of kind
    ///   ``TransportError/Kind/invalidRequest`` for a request that cannot be sent, or
    ///   ``TransportError/Kind/timedOut`` when the deadline already passed.
    init(_ request: HTTPRequest, on owner: URLSessionTransport.Session) throws {
        try Task.checkCancellation()
        try URLSessionTransport.validate(request)
        let timedOut = RequestDeadline.timedOut(method: request.method, url: request.url)
        guard let deadline = RequestDeadline.current, deadline > .now else { throw timedOut }
        var foundation = request.urlRequest
        if case .file(let file)? = request.body?.source {
            // URLSession reads the file as it sends (a DispatchIO channel), never whole.
            foundation.httpBodyStream = nil
            task = owner.session.uploadTask(with: foundation, fromFile: URL(fileURLWithPath: file.path))
        } else {
            task = owner.session.dataTask(with: foundation)
        }
        self.foundation = foundation
        delegate = owner.delegate
        cancels = owner.cancels
        timer = LockedValue(owner.delegate.fail(task, at: deadline, with: timedOut))
    }

    /// Starts the task.
    func start() { task.resume() }

    /// Asks FoundationNetworking to cancel the task, and returns without waiting for it.
    ///
    /// `URLSessionTask.cancel()` blocks its caller (`workQueue.sync`) until the session's serial
    /// work queue is free, then stops the transfer in a second turn on that queue. libcurl's socket
    /// reads run on the same queue and keep it for as long as the socket stays readable: a peer
    /// that sends faster than the client takes the bytes (loopback, a fast LAN, a client slowed by
    /// load or a sanitizer) holds it until it pauses, measured up to the whole 60 s a test server
    /// kept writing (RELIABILITY.md). Called on the caller's thread, the cancel held Swift's
    /// cooperative pool (half of it on two cores) and `stream` did not return that long; here it
    /// runs on the session's cancel queue, and the transfer stops when the queue is free.
    func cancel() { cancels.async { [task] in task.cancel() } }

    /// Ends the exchange: asks for the task's cancel if it still runs (without waiting for it:
    /// ``cancel()``), and cancels the deadline timer.
    func end() {
        cancel()
        timer.withLock { $0.cancel() }
    }
}
