import Foundation

extension ETagTransport {
    /// Starts the background revalidation of a stale entry served within
    /// `stale-while-revalidate` (RFC 5861 §3), unless one is running for it or the limit is
    /// reached. It goes through `inner` like any request, stores what it gets, and reports its
    /// end as ``ETagEvent/backgroundRefresh(_:outcome:)`` to the observers of the request that
    /// started it. It is bound by no caller's deadline, only by the transports below and by
    /// ``shutDown()``, and runs without the caller's ``ResponseBodyLimit`` and endpoint policy
    /// task-local (the entry's `rule` still decides what it stores); it is not coalesced: a caller that must go to the network meanwhile
    /// sends its own request, under its own deadline, instead of waiting for the refresh.
    func refreshInBackground(
        _ request: HTTPRequest, candidate: Candidate, primaryKey: StoreKey,
        rule: EndpointCachePolicy
    ) {
        guard let registry = backgroundRefreshes else { return }
        // The copy that runs the refresh holds no registry, so a running refresh does not keep
        // the transport's registry alive, and releasing the transport cancels it.
        var copy = self
        copy.backgroundRefreshes = nil
        let worker = copy
        let url = request.url
        // The layer's own validators revalidate the entry: a caller's If-None-Match would get a
        // 304 for the caller's copy, which the refresh could not store.
        let request = Self.withoutCallerValidators(request)
        let start = registry.start(key: candidate.key.text) {
            await RequestDeadline.withoutCallerScope {
                do {
                    _ = try await worker.exchange(
                        request, primaryKey: primaryKey, candidate: candidate, rule: rule,
                        fallback: nil)
                    worker.report(.backgroundRefresh(url, outcome: .completed))
                } catch {
                    worker.report(.backgroundRefresh(url, outcome: Task.isCancelled ? .cancelled : .failed))
                }
            }
        }
        if start == .atLimit { report(.backgroundRefresh(url, outcome: .skippedAtLimit)) }
    }
}
