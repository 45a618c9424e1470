#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Dispatch
import Foundation

/// One request on the wire for ``URLSessionTransport``: its URLSession task, the timer that ends
/// it at the whole-request deadline, and for a single-pass body the stream libcurl reads, the
/// task feeding it and the session of its own. One owner for all of them, ended by ``end()``
/// whatever happened, so no task, timer, pump or session outlives the call that made it.
final class URLSessionExchange: Sendable {
    let task: URLSessionTask
    /// The request as URLSession sends it, without a body URLSession holds (a file or a stream).
    let foundation: URLRequest
    /// The stream a single-pass body is sent through, `nil` for other bodies.
    let upload: UploadBodyStream?
    private let uploadSession: URLSession?
    private let delegate: SessionDelegate
    /// The deadline's timer (a `DispatchWorkItem`, not `Sendable`: reached only under the lock).
    private let timer: LockedValue<DispatchWorkItem>
    private let pump = LockedValue<Task<Void, Never>?>(nil)

    /// Creates the task for `request` without starting it.
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
        switch request.body?.source {
        case .file(let file)?:
            // URLSession reads the file as it sends (a DispatchIO channel), never whole.
            foundation.httpBodyStream = nil
            task = owner.session.uploadTask(with: foundation, fromFile: URL(fileURLWithPath: file.path))
            upload = nil
            uploadSession = nil
        case .singlePass?:
            let stream = UploadBodyStream()
            foundation.httpBodyStream = stream.makeInputStream()
            if let length = request.body?.length {
                foundation.setValue(String(length), forHTTPHeaderField: "Content-Length")
            }
            let session = owner.uploadSession()
            task = session.dataTask(with: foundation)
            upload = stream
            uploadSession = session
        case .bytes?, nil:
            task = owner.session.dataTask(with: foundation)
            upload = nil
            uploadSession = nil
        }
        self.foundation = foundation
        delegate = owner.delegate
        timer = LockedValue(owner.delegate.fail(task, at: deadline, with: timedOut))
    }

    /// Starts the task, and the task feeding a single-pass `body` to it.
    func start(body: HTTPBody?) {
        if let upload, let body {
            let (task, delegate, foundation) = (self.task, self.delegate, self.foundation)
            pump.withLock {
                $0 = Task {
                    await upload.pump(body) { error in
                        let reason = (error as? HTTPBodyError)?.description ?? "its sequence threw \(type(of: error))"
                        delegate.fail(task, TransportError(.invalidRequest, method: HTTPMethod(foundation), url: foundation.url,
                                                           message: "cannot send the request body: \(reason)", underlying: error))
                    }
                }
            }
        }
        task.resume()
    }

    /// Cancels the task (a single-pass upload's stream first: its blocked read would hold the
    /// cancellation, which waits on the same queue).
    func cancel() {
        upload?.abort()
        task.cancel()
    }

    /// Ends the exchange: cancels the task if it still runs, the deadline timer, the pump, and
    /// lets an upload's own session go once its task is done.
    func end() {
        cancel()
        timer.withLock { $0.cancel() }
        pump.withLock { $0 }?.cancel()
        uploadSession?.finishTasksAndInvalidate()
    }
}
