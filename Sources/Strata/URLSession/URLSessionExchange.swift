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
    private let calls: URLSessionTaskCalls
    /// The deadline's timer (a `DispatchWorkItem`, not `Sendable`: reached only under the lock).
    private let timer: LockedValue<DispatchWorkItem>

    /// Creates the task for `request`, whose body is bytes or a file (a single-pass body was read
    /// into memory before: ``URLSessionTransport/withBodyInMemoryIfSinglePass(_:)``), without
    /// starting it. The task is created on the session's ``URLSessionTaskCalls`` queue.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled, ``TransportError`` of kind
    ///   ``TransportError/Kind/invalidRequest`` for a request that cannot be sent, or
    ///   ``TransportError/Kind/timedOut`` when the deadline already passed.
    init(_ request: HTTPRequest, on owner: URLSessionTransport.Session) async throws {
        try Task.checkCancellation()
        try URLSessionTransport.validate(request)
        let timedOut = RequestDeadline.timedOut(method: request.method, url: request.url)
        guard let deadline = RequestDeadline.current, deadline > .now else { throw timedOut }
        var foundation = request.urlRequest
        let session = owner.session
        let created: URLSessionTask
        if case .file(let file)? = request.body?.source {
            // URLSession reads the file as it sends (a DispatchIO channel), never whole.
            foundation.httpBodyStream = nil
            let upload = foundation
            created = await owner.calls.perform { session.uploadTask(with: upload, fromFile: URL(fileURLWithPath: file.path)) }
        } else {
            let data = foundation
            created = await owner.calls.perform { session.dataTask(with: data) }
        }
        // The wait can be long (the queue waits behind FoundationNetworking's). A deadline that
        // passed meanwhile would fire the timer below before the task is registered, where it
        // finds nothing to fail, and the request would run unbounded: fail it here instead.
        guard deadline > .now else {
            owner.calls.enqueue { created.cancel() }
            throw timedOut
        }
        task = created
        self.foundation = foundation
        calls = owner.calls
        timer = LockedValue(owner.delegate.fail(task, at: deadline, with: timedOut))
    }

    /// Starts the task (on the ``URLSessionTaskCalls`` queue: the caller does not wait).
    func start() {
        let task = task
        calls.enqueue { task.resume() }
    }

    /// Cancels the task (on the ``URLSessionTaskCalls`` queue: the caller does not wait).
    func cancel() {
        let task = task
        calls.enqueue { task.cancel() }
    }

    /// Ends the exchange: cancels the task if it still runs, and the deadline timer.
    func end() {
        cancel()
        timer.withLock { $0.cancel() }
    }
}
