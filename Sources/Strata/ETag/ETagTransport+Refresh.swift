import Foundation

extension ETagTransport {
    /// Starts the background revalidation of a stale entry served within
    /// `stale-while-revalidate` (RFC 5861 §3), unless one is running for it or the limit is
    /// reached. It goes through `inner` like any request (joining an identical request in flight),
    /// stores what it gets, and reports its end as ``ETagEvent/backgroundRefresh(_:outcome:)`` to
    /// the observers of the request that started it. It is bound by no caller's deadline, only by
    /// the transports below and by ``shutDown()``.
    func refreshInBackground(_ request: HTTPRequest, candidate: Candidate, primaryKey: String,
                             rule: EndpointCachePolicy) {
        guard let registry = backgroundRefreshes else { return }
        // The copy that runs the refresh holds no registry, so a running refresh does not keep
        // the transport's registry alive, and releasing the transport cancels it.
        var copy = self
        copy.backgroundRefreshes = nil
        let worker = copy
        let url = request.url
        let start = registry.start(key: candidate.key) {
            await RequestDeadline.withoutDeadline {
                do {
                    let key = InFlightRequests.Key(primaryKey: primaryKey, method: request.method,
                                                   headers: request.headers, rule: rule)
                    _ = try await worker.inFlight.run(key, joined: {}) {
                        try await worker.exchange(request, primaryKey: primaryKey, candidate: candidate, rule: rule,
                                                  fallback: nil)
                    }
                    worker.report(.backgroundRefresh(url, outcome: .completed))
                } catch {
                    worker.report(.backgroundRefresh(url, outcome: Task.isCancelled ? .cancelled : .failed))
                }
            }
        }
        if start == .atLimit { report(.backgroundRefresh(url, outcome: .skippedAtLimit)) }
    }
}
