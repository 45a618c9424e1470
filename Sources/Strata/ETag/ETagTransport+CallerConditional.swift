import Foundation

/// Requests that carry the caller's own `If-None-Match` or `If-Modified-Since` (RFC 9111 §4.3.2).
///
/// A stored response that may answer the request (fresh, or stale where the request or the
/// response allows it) answers it: with a `304` made from the store when the caller's validators
/// match it, in full when they do not. When none may, the request goes to the origin with the
/// caller's validators untouched (the layer adds none of its own), and the origin's answer is
/// the caller's: a `304` as it came, which also freshens the stored response it identifies
/// (§4.3.4), or removes a stored status other than 2xx (RFC 9110 §13.2.1); a `200`, stored as
/// any other.
extension ETagTransport {
    /// The stored `entry` as the answer to `request`: the caller's `304` when its own validators
    /// match, else the stored response; reports ``ETagEvent/callerConditional(_:outcome:)`` when
    /// the request carried validators.
    func storedAnswer(_ entry: ETagCacheEntry, to request: HTTPRequest, age: Int, source: HTTPResponse.Source)
        -> HTTPResponse
    {
        let answer = policy.storedAnswer(entry, for: request, age: age, source: source, now: now)
        if let matched = answer.callerValidatorsMatched {
            report(.callerConditional(request.url, outcome: matched ? .notModified : .modified))
        }
        return answer.response
    }

    /// Sends `request`, which carries the caller's own validators, as it is; its `304` is
    /// returned as it came (and freshens `candidate` when it identifies it), anything else is
    /// kept as ``send(_:)`` keeps a response.
    ///
    /// - Parameter keepsErrors: Whether a 500/502/503/504 leaves `candidate` stored (for
    ///   stale-if-error) instead of being handled as a response.
    nonisolated(nonsending) func forwardCallerConditional(
        _ request: HTTPRequest, primaryKey: StoreKey, candidate: Candidate?, rule: EndpointCachePolicy,
        keepsErrors: Bool
    ) async throws -> HTTPResponse {
        report(.callerConditional(request.url, outcome: .forwarded))
        let requestTime = now()
        let response = try await inner.send(request)
        let times = ExchangeTimes(requestTime: requestTime, responseTime: now())
        if response.statusCode == 304 {
            await freshen(candidate, withCallerNotModified: response, for: request, primaryKey: primaryKey, times: times)
            return response
        }
        if keepsErrors, FreshnessPolicy.allowsStaleIfError(status: response.statusCode) { return response }
        return await keep(response, for: request, primaryKey: primaryKey, replacing: candidate, times: times, rule: rule)
    }

    /// ``forwardCallerConditional(_:primaryKey:candidate:rule:keepsErrors:)`` for ``stream(_:_:)``:
    /// a `304` head reaches `consume` as it came; a 500/502/503/504 within `fallback`'s window is
    /// intercepted as the stale answer; anything else is consumed and kept as a streamed
    /// response is.
    func streamForwardingCallerConditional<Result: Sendable>(
        _ request: HTTPRequest, primaryKey: StoreKey, candidate: Candidate?, rule: EndpointCachePolicy,
        fallback: StaleFallback?, _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> StreamStep<Result> {
        report(.callerConditional(request.url, outcome: .forwarded))
        let requestTime = now()
        return try await inner.stream(request) { head, body in
            let times = ExchangeTimes(requestTime: requestTime, responseTime: now())
            if head.statusCode == 304 {
                let notModified = HTTPResponse(statusCode: 304, headers: head.headers, url: head.url)
                await freshen(candidate, withCallerNotModified: notModified, for: request, primaryKey: primaryKey, times: times)
                return .consumed(try await consume(head, body))
            }
            if let stale = staleAnswer(to: head, fallback: fallback, for: request) { return .intercepted(stale) }
            if fallback != nil, FreshnessPolicy.allowsStaleIfError(status: head.statusCode) {
                // Past the window: the failure is the answer, with its body; the entry stays.
                return .consumed(try await consume(head, body))
            }
            return .consumed(
                try await consumeKeeping(
                    head, body, for: request, primaryKey: primaryKey, replacing: candidate, times: times,
                    rule: rule, consume))
        }
    }

    /// Writes back `candidate` freshened by the origin's `304` to the caller's validators when
    /// the 304 identifies it (RFC 9111 §4.3.4), removes it when the 304 outdates it (a stored
    /// status other than 2xx, RFC 9110 §13.2.1), and otherwise leaves the store alone.
    private nonisolated(nonsending) func freshen(
        _ candidate: Candidate?, withCallerNotModified notModified: HTTPResponse, for request: HTTPRequest,
        primaryKey: StoreKey, times: ExchangeTimes
    ) async {
        guard let candidate else { return }
        switch policy.callerNotModified(notModified, updates: candidate.entry, times: times) {
        case .freshen(let fresh):
            await storeEntry(fresh, primaryKey: primaryKey, request: request)
        case .remove:
            await removeEntry(for: candidate.key)
            report(.invalidated(request.url))
        case .leave:
            return
        }
    }

    /// `request` without the caller's own validators: what a background refresh sends, so that
    /// the layer's validators, not the caller's, revalidate the stored response.
    static func withoutCallerValidators(_ request: HTTPRequest) -> HTTPRequest {
        var plain = request
        plain.headers.remove(name: "If-None-Match")
        plain.headers.remove(name: "If-Modified-Since")
        return plain
    }
}
