#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// The delegate behind ``URLSessionTransport``: collects each task's response and body, enforces
/// the size limit, and resumes the waiting caller exactly once.
///
/// URLSession calls it on its own delegate queue, never on Swift's cooperative pool.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct Pending {
        var continuation: CheckedContinuation<HTTPResponse, any Error>
        var request: URLRequest
        var response: HTTPURLResponse?
        var body = Data()
        /// The 401 arrived in full and the task was cancelled only to stop the challenge hang.
        var answeredByChallenge = false
        /// A failure decided here (a limit, the deadline); wins over the cancellation it causes.
        var failure: TransportError?
    }

    private let pending = LockedValue<[Int: Pending]>([:])
    private let limits: URLSessionTransport.Limits

    init(limits: URLSessionTransport.Limits) {
        self.limits = limits
    }

    /// Registers the caller waiting for `task`. Returns `false`, having resumed the caller with
    /// `CancellationError`, when the calling task is already cancelled: its cancellation handler
    /// may have cancelled `task` before this registration, and the completion that follows
    /// would then find no caller to resume. Checked under the lock completions take, so a
    /// cancellation after the check finds the registration.
    func register(_ task: URLSessionTask, request: URLRequest,
                  continuation: CheckedContinuation<HTTPResponse, any Error>) -> Bool {
        let registered = pending.withLock { tasks -> Bool in
            guard !Task.isCancelled else { return false }
            tasks[task.taskIdentifier] = Pending(continuation: continuation, request: request)
            return true
        }
        if !registered { continuation.resume(throwing: CancellationError()) }
        return registered
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
        guard let request = pending.withLock({ $0[task.taskIdentifier]?.request }) else { return }
        fail(task, TransportError(kind, method: HTTPMethod(request), url: request.url, message: message))
    }

    /// Fails `task` with `error` if it is still pending; does nothing once it completed.
    private func fail(_ task: URLSessionTask, _ error: TransportError) {
        let pending = pending.withLock { tasks in
            guard tasks[task.taskIdentifier] != nil else { return false }
            tasks[task.taskIdentifier]?.failure = error
            return true
        }
        if pending { task.cancel() }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let http = response as? HTTPURLResponse
        pending.withLock { $0[dataTask.taskIdentifier]?.response = http }
        if response.expectedContentLength > Int64(limits.maxResponseBodyBytes) {
            fail(dataTask, .invalidResponse, "Content-Length \(response.expectedContentLength) exceeds the "
                + "\(limits.maxResponseBodyBytes)-byte limit (URLSessionTransport.Limits.maxResponseBodyBytes)")
            return completionHandler(.cancel)
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let tooLarge = pending.withLock { tasks -> Bool in
            guard var entry = tasks[dataTask.taskIdentifier] else { return false }
            guard entry.body.count + data.count <= limits.maxResponseBodyBytes else { return true }
            entry.body.append(data)
            tasks[dataTask.taskIdentifier] = entry
            return false
        }
        if tooLarge {
            fail(dataTask, .invalidResponse, "the body exceeds the \(limits.maxResponseBodyBytes)-byte limit "
                + "(URLSessionTransport.Limits.maxResponseBodyBytes)")
        }
    }

    /// Redirects are followed by ``URLSessionTransport`` itself (FoundationNetworking drops the
    /// body of a 307/308 follow-up and forwards credentials across hosts), so the task ends with
    /// the 3xx response.
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    /// Linux quirk: FoundationNetworking never completes a 401 that carries
    /// `WWW-Authenticate: Basic` or `Digest` when the challenge gets default handling, and every
    /// other answer cancels the task. The challenge arrives after the whole 401 (headers and
    /// body) was delivered here, so the task is marked answered and cancelled, and the 401 goes
    /// to the caller as a normal response. Strata never answers HTTP authentication challenges
    /// with stored credentials: authentication is the application's business.
    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        pending.withLock { tasks in
            guard tasks[task.taskIdentifier]?.response != nil else { return }
            tasks[task.taskIdentifier]?.answeredByChallenge = true
        }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = pending.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let method = HTTPMethod(entry.request)
        if let failure = entry.failure {
            return entry.continuation.resume(throwing: failure)
        }
        if let error, !entry.answeredByChallenge {
            if (error as NSError).domain == NSURLErrorDomain, (error as NSError).code == NSURLErrorCancelled {
                return entry.continuation.resume(throwing: CancellationError())
            }
            let kind = URLErrorClassification.kind(of: error)
            return entry.continuation.resume(throwing: TransportError(
                kind, method: method, url: entry.request.url, message: error.localizedDescription, underlying: error))
        }
        guard let response = entry.response else {
            return entry.continuation.resume(throwing: TransportError(
                .invalidResponse, method: method, url: entry.request.url, message: "no HTTP response"))
        }
        entry.continuation.resume(returning: HTTPResponse(
            statusCode: response.statusCode, headers: HTTPHeaders(response), body: entry.body,
            url: response.url ?? entry.request.url))
    }
}
