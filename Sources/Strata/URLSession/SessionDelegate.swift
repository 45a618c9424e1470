#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// The delegate behind ``URLSessionTransport``: collects each buffered task's response and body
/// (enforcing the size limit) or hands a streamed task's head to its caller and its body to a
/// ``BodyChannel``, and resumes the waiting caller exactly once.
///
/// URLSession calls it on its own serial delegate queue, never on Swift's cooperative pool. Tasks
/// are keyed by object identity, unique while a task is pending. It never calls the tasks'
/// methods itself: its cancels go to the session's ``URLSessionTaskCalls`` queue.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// Who waits for the task, and how.
    private enum Receiver {
        /// `send`: the whole response, once the task completes.
        case buffered(CheckedContinuation<HTTPResponse, any Error>)
        /// `stream`: the head as soon as it arrives (`nil` once resumed), the body through `channel`.
        case streamed(head: CheckedContinuation<HTTPResponseHead, any Error>?, channel: BodyChannel)
    }

    private struct Pending {
        var receiver: Receiver
        var request: URLRequest
        var response: HTTPURLResponse?
        var body = Data()
        /// The 401 arrived in full and the task was cancelled only to stop the challenge hang.
        var answeredByChallenge = false
        /// A failure decided here (a limit, the deadline); wins over the cancellation it causes.
        var failure: TransportError?
        /// The buffered body's limit and the setting that decided it (``ResponseBodyLimit`` or ours).
        var bodyLimit = (limit: Int.max, setting: "")
        /// FoundationNetworking kept the body from us (a 3xx without `Location`).
        var bodyDiscarded = false
    }

    private let pending = LockedValue<[ObjectIdentifier: Pending]>([:])
    /// Where tasks are cancelled: `cancel()` waits for FoundationNetworking's work queue, and
    /// this delegate's callbacks must not (see ``URLSessionTaskCalls``).
    private let calls: URLSessionTaskCalls

    init(calls: URLSessionTaskCalls) {
        self.calls = calls
    }

    /// Registers the caller waiting for `task`. Returns `false`, having resumed the caller with
    /// `CancellationError`, when the calling task is already cancelled: its cancellation handler
    /// may have cancelled `task` before this registration, and the completion that follows
    /// would then find no caller to resume. Checked under the lock completions take, so a
    /// cancellation after the check finds the registration.
    ///
    /// - Parameter bodyLimit: The most body bytes buffered, and the setting that decided it
    ///   (named in the error past it).
    func register(
        _ task: URLSessionTask, request: URLRequest, bodyLimit: (limit: Int, setting: String),
        continuation: CheckedContinuation<HTTPResponse, any Error>
    ) -> Bool {
        var entry = Pending(receiver: .buffered(continuation), request: request)
        entry.bodyLimit = bodyLimit
        let registered = register(task, entry)
        if !registered { continuation.resume(throwing: CancellationError()) }
        return registered
    }

    /// Registers a streamed task: `head` is resumed when the response head arrives (or the task
    /// fails first), and the body then goes to `channel`. Returns `false`, having resumed `head`
    /// with `CancellationError`, when the calling task is already cancelled.
    func register(
        _ task: URLSessionTask, request: URLRequest, channel: BodyChannel,
        head: CheckedContinuation<HTTPResponseHead, any Error>
    ) -> Bool {
        let entry = Pending(receiver: .streamed(head: head, channel: channel), request: request)
        let registered = register(task, entry)
        if !registered { head.resume(throwing: CancellationError()) }
        return registered
    }

    private func register(_ task: URLSessionTask, _ entry: Pending) -> Bool {
        pending.withLock { tasks -> Bool in
            guard !Task.isCancelled else { return false }
            tasks[ObjectIdentifier(task)] = entry
            return true
        }
    }

    /// Fails `task` with `error` at `deadline` unless the returned timer is cancelled first
    /// (when the task completed): FoundationNetworking has no whole-request timeout per task,
    /// only the idle timeout between packets. The timer runs on a Dispatch queue, never on
    /// Swift's cooperative pool.
    func fail(_ task: URLSessionTask, at deadline: ContinuousClock.Instant, with error: TransportError) -> DispatchWorkItem {
        let delay = ContinuousClock.now.duration(to: deadline)
        let (seconds, attoseconds) = delay.components
        // RequestDeadline keeps deadlines within a year, so the nanoseconds fit an Int.
        let nanoseconds = max(0, Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000))
        let timer = DispatchWorkItem { [weak self] in self?.fail(task, error) }
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: timer)
        return timer
    }

    /// Ends `task` with a `TransportError` decided here (a limit), which wins over the
    /// cancellation it causes.
    private func fail(_ task: URLSessionTask, _ kind: TransportError.Kind, _ message: String) {
        guard let request = pending.withLock({ $0[ObjectIdentifier(task)]?.request }) else { return }
        fail(task, TransportError(kind, method: HTTPMethod(request), url: request.url, message: message))
    }

    /// Fails `task` with `error` if it is still pending (the first failure decided here wins,
    /// and only it cancels the task); does nothing once it completed.
    func fail(_ task: URLSessionTask, _ error: TransportError) {
        let isFirstFailure = pending.withLock { tasks -> Bool in
            guard let entry = tasks[ObjectIdentifier(task)], entry.failure == nil else { return false }
            tasks[ObjectIdentifier(task)]?.failure = error
            return true
        }
        // Once: a consumer past its lag limit fails on every chunk that still arrives, and each
        // cancel waits on the calls queue, where new requests' tasks are created.
        guard isFirstFailure else { return }
        calls.enqueue { task.cancel() }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        let (head, streamed, limit) = pending.withLock {
            tasks -> (CheckedContinuation<HTTPResponseHead, any Error>?, Bool, (limit: Int, setting: String)) in
            let key = ObjectIdentifier(dataTask)
            guard var entry = tasks[key] else { return (nil, false, (Int.max, "")) }
            entry.response = http
            var head: CheckedContinuation<HTTPResponseHead, any Error>?
            var streamed = false
            if case .streamed(let waiting, let channel) = entry.receiver {
                streamed = true
                if http != nil {
                    head = waiting
                    entry.receiver = .streamed(head: nil, channel: channel)
                }
            }
            tasks[key] = entry
            return (head, streamed, entry.bodyLimit)
        }
        if streamed {
            // A streamed body is the consumer's to bound: maxResponseBodyBytes is for buffered send.
            completionHandler(.allow)
            if let head, let http {
                head.resume(
                    returning: HTTPResponseHead(
                        statusCode: http.statusCode, headers: .decodedByLibcurl(http),
                        url: http.url ?? dataTask.originalRequest?.url))
            }
            return
        }
        // libcurl decodes gzip and deflate itself, so a coded body's Content-Length counts coded
        // bytes: the limit, on decoded bytes, is checked as they arrive instead.
        if response.expectedContentLength > Int64(limit.limit), http?.value(forHTTPHeaderField: "Content-Encoding") == nil {
            fail(
                dataTask, .invalidResponse,
                "Content-Length \(response.expectedContentLength) exceeds the "
                    + "\(limit.limit)-byte limit (\(limit.setting))")
            return completionHandler(.cancel)
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let (tooLarge, channel) = pending.withLock { tasks -> ((limit: Int, setting: String)?, BodyChannel?) in
            let key = ObjectIdentifier(dataTask)
            guard var entry = tasks[key] else { return (nil, nil) }
            if case .streamed(_, let channel) = entry.receiver { return (nil, channel) }
            guard data.count <= entry.bodyLimit.limit - entry.body.count else { return (entry.bodyLimit, nil) }
            entry.body.append(data)
            tasks[key] = entry
            return (nil, nil)
        }
        if let channel {
            return deliver(data, to: channel, of: dataTask)
        }
        if let limit = tooLarge {
            fail(dataTask, .invalidResponse, "the body exceeds the \(limit.limit)-byte limit (\(limit.setting))")
        }
    }

    /// Hands a streamed chunk to the consumer. Linux: nothing here can slow libcurl down (see
    /// ``URLSessionTransport/Limits/maxStreamLagBytes``), so a consumer that falls that far behind
    /// fails the request instead of letting the buffer grow with the body.
    private func deliver(_ data: Data, to channel: BodyChannel, of task: URLSessionTask) {
        guard !channel.isReleased, !channel.yield(ArraySlice([UInt8](data))), !channel.isReleased else { return }
        fail(
            task, .other,
            "the consumer of the streamed body fell more than \(channel.highWatermark) bytes behind "
                + "(URLSessionTransport.Limits.maxStreamLagBytes); URLSession on Linux cannot pause a download, so read "
                + "the body faster, raise the limit, or send pinned hosts through PinningTransport, which can")
    }

    /// Redirects are followed by ``URLSessionTransport`` itself (FoundationNetworking drops the
    /// body of a 307/308 follow-up and forwards credentials across hosts), so the task ends with
    /// the 3xx response.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    /// Linux quirk: FoundationNetworking never completes a 401 that carries
    /// `WWW-Authenticate: Basic` or `Digest` when the challenge gets default handling, and every
    /// other answer cancels the task. The challenge arrives after the whole 401 (headers and
    /// body) was delivered here, so the task is marked answered and cancelled, and the 401 goes
    /// to the caller as a normal response. Strata never answers HTTP authentication challenges
    /// with stored credentials: authentication is the application's business.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        pending.withLock { tasks in
            guard tasks[ObjectIdentifier(task)]?.response != nil else { return }
            tasks[ObjectIdentifier(task)]?.answeredByChallenge = true
        }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard var entry = pending.withLock({ $0.removeValue(forKey: ObjectIdentifier(task)) }) else { return }
        if entry.response == nil, error == nil, let unreported = task.response as? HTTPURLResponse {
            // Linux quirk: FoundationNetworking never reports the head of a 301, 302, 303 or
            // 305–308 (it expects to follow it), and one without `Location` (a valid final
            // response, RFC 9110 §15.4) completes with neither a head nor its body, which it
            // discarded: the task's own response is all there is. No byte of its body arrives,
            // so the `Content-Length` that counted them goes too; a cache reads a 3xx without
            // `Location` or `Content-Length` and with no body as possibly incomplete, and never
            // stores it (RFC 9111 §3.3).
            entry.response = unreported
            entry.bodyDiscarded = true
        }
        let outcome = Self.outcome(of: entry, error: error)
        switch entry.receiver {
        case .buffered(let continuation):
            continuation.resume(with: outcome)
        case .streamed(let head, let channel):
            if let head {
                // The task ended before a head arrived: the caller still waits for it.
                head.resume(with: outcome.map(\.head))
            }
            if case .failure(let failure) = outcome { channel.finish(throwing: failure) } else { channel.finish() }
        }
    }

    /// Linux quirk: FoundationNetworking always has libcurl decode bodies, and libcurl fails one
    /// in a coding it does not know at its first byte; neither can be told to hand the bytes
    /// over as they came (`CURLOPT_HTTP_CONTENT_DECODING` is not reachable from Swift).
    private static func unknownCodingMessage(_ coding: String) -> String {
        "the server coded the body as \"\(coding)\" (Content-Encoding), which libcurl does not decode, and URLSession "
            + "on Linux cannot hand a body over undecoded; send this host through PinningTransport (StrataPinning), "
            + "which returns such a body undecoded with its Content-Encoding, or have the server send another coding"
    }

    /// What a completed task amounts to: a failure decided here, the task's own error mapped to
    /// a ``TransportError`` (or `CancellationError`), or the response with what was buffered.
    private static func outcome(of entry: Pending, error: (any Error)?) -> Result<HTTPResponse, any Error> {
        let method = HTTPMethod(entry.request)
        if let failure = entry.failure { return .failure(failure) }
        if let error, !entry.answeredByChallenge {
            if (error as NSError).domain == NSURLErrorDomain, (error as NSError).code == NSURLErrorCancelled {
                return .failure(CancellationError())
            }
            if let coding = entry.response.map({ HTTPHeaders($0) })?.codingUnknownToLibcurl,
                error.localizedDescription.lowercased().contains("content encoding")
            {
                return .failure(
                    TransportError(
                        .invalidResponse, method: method, url: entry.request.url,
                        message: Self.unknownCodingMessage(coding), underlying: error))
            }
            let kind = URLErrorClassification.kind(of: error)
            return .failure(
                TransportError(
                    kind, method: method, url: entry.request.url, message: error.localizedDescription,
                    underlying: error))
        }
        guard let response = entry.response else {
            return .failure(TransportError(.invalidResponse, method: method, url: entry.request.url, message: "no HTTP response"))
        }
        var headers = HTTPHeaders.decodedByLibcurl(response)
        if entry.bodyDiscarded { headers.remove(name: "Content-Length") }
        return .success(
            HTTPResponse(
                statusCode: response.statusCode, headers: headers, body: entry.body,
                url: response.url ?? entry.request.url))
    }
}
