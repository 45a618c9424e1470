#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

extension ETagTransport {
    /// What the store can do for a request: answer it, or hand it to the network with what
    /// was found.
    enum StoreAnswer {
        /// A response made from the store (fresh, stale, or the 504 of `only-if-cached`).
        case answered(HTTPResponse)
        /// Send it: `candidate` may validate it, `fallback` may answer if that fails.
        case network(primaryKey: StoreKey, candidate: Candidate?, fallback: StaleFallback?)
    }

    /// Looks `request` up and decides with ``FreshnessPolicy`` whether the store answers it.
    nonisolated(nonsending) func answerFromStore(_ request: HTTPRequest, rule: EndpointCachePolicy) async -> StoreAnswer {
        let url = request.url
        let primaryKey = primaryKey(for: request)
        let directives = request.headers.contains("Cache-Control") ? CacheDirectives(request.headers) : .none
        let candidate = await lookUp(request, primaryKey: primaryKey)
        var fallback: StaleFallback?
        if let candidate {
            // The clock is read only when the entry's age matters (not for a bare validator).
            var decidedAt: Date?
            let use = freshness.use(
                of: candidate.entry, for: request, directives: directives,
                now: {
                    let time = now()
                    decidedAt = time
                    return time
                }, rule: rule, sharedStorage: store.isSharedStorage)
            switch use {
            case .fresh(let age):
                report(.fresh(url, age: age.ageFieldValue))
                return .answered(storedAnswer(candidate.entry, to: request, age: age.ageFieldValue, source: .fresh))
            case .stale(let age):
                report(.servedStale(url, age: age.ageFieldValue, reason: .maxStale))
                return .answered(storedAnswer(candidate.entry, to: request, age: age.ageFieldValue, source: .stale))
            case .staleWhileRevalidate(let age):
                refreshInBackground(request, candidate: candidate, primaryKey: primaryKey, rule: rule)
                report(.servedStale(url, age: age.ageFieldValue, reason: .revalidatingInBackground))
                return .answered(storedAnswer(candidate.entry, to: request, age: age.ageFieldValue, source: .stale))
            case .revalidate(let allowance):
                fallback = allowance.map { (candidate: candidate, allowance: $0, decidedAt: decidedAt ?? now()) }
            }
        }
        // §5.2.1.7: nothing stored may answer, and the request forbids the network.
        if directives.onlyIfCached {
            report(.onlyIfCachedUnsatisfied(url))
            return .answered(
                HTTPResponse(
                    statusCode: 504, headers: ["Content-Length": "0"], body: Data(), url: url,
                    source: .generated))
        }
        return .network(primaryKey: primaryKey, candidate: candidate, fallback: fallback)
    }

    /// A `GET` or `HEAD` that uses the store: answered from it when ``FreshnessPolicy`` allows,
    /// otherwise sent (coalesced with identical `GET`s in flight, unless a ``ResponseBodyLimit``
    /// is set).
    nonisolated(nonsending) func sendUsingStore(_ request: HTTPRequest, rule: EndpointCachePolicy) async throws -> HTTPResponse {
        let (primaryKey, candidate, fallback): (StoreKey, Candidate?, StaleFallback?)
        switch await answerFromStore(request, rule: rule) {
        case .answered(let response): return response
        case .network(let key, let found, let stale): (primaryKey, candidate, fallback) = (key, found, stale)
        }
        // A caller with its own body limit must get a response read under that limit, not the
        // leader's: it is not coalesced.
        guard request.method == .get, ResponseBodyLimit.current == nil else {
            return try await exchange(request, primaryKey: primaryKey, candidate: candidate, rule: rule, fallback: fallback)
        }
        let key = InFlightRequests.Key(primaryKey: primaryKey, method: request.method, headers: request.headers, rule: rule)
        return try await inFlight.run(key, url: request.url, joined: { report(.coalesced(request.url)) }) {
            try await exchange(request, primaryKey: primaryKey, candidate: candidate, rule: rule, fallback: fallback)
        }
    }

    /// A stored response that may answer when revalidating it fails, and since when.
    typealias StaleFallback = (candidate: Candidate, allowance: StaleIfErrorAllowance, decidedAt: Date)

    /// Sends `request`, conditionally when `candidate` has a validator, and keeps what it may;
    /// within `fallback`'s window, a failure or a 500/502/503/504 is answered with the stale
    /// entry instead (RFC 5861 §4).
    nonisolated(nonsending) func exchange(
        _ request: HTTPRequest, primaryKey: StoreKey, candidate: Candidate?, rule: EndpointCachePolicy,
        fallback: StaleFallback?
    ) async throws -> HTTPResponse {
        do {
            let response = try await revalidateOrSend(
                request, primaryKey: primaryKey, candidate: candidate, rule: rule,
                keepsErrorsFor: fallback)
            if let fallback, FreshnessPolicy.allowsStaleIfError(status: response.statusCode),
                let stale = staleResponse(fallback, for: request, failure: "HTTP \(response.statusCode)")
            {
                return stale
            }
            return response
        } catch {
            guard let fallback, !Task.isCancelled, Self.allowsStaleIfError(error),
                let stale = staleResponse(fallback, for: request, failure: Self.failureSummary(error))
            else { throw error }
            return stale
        }
    }

    private nonisolated(nonsending) func revalidateOrSend(
        _ request: HTTPRequest, primaryKey: StoreKey, candidate: Candidate?,
        rule: EndpointCachePolicy, keepsErrorsFor fallback: StaleFallback?
    ) async throws -> HTTPResponse {
        let url = request.url
        // RFC 9111 §4.3.2: the caller's own validators go to the origin as they are.
        if CallerPreconditions.arePresent(in: request.headers) {
            return try await forwardCallerConditional(
                request, primaryKey: primaryKey, candidate: candidate, rule: rule, keepsErrors: fallback != nil)
        }
        guard let candidate, let conditional = policy.conditionalRequest(request, validating: candidate.entry) else {
            report(.miss(url))
            return try await sendUnconditionally(
                request, primaryKey: primaryKey, replacing: candidate, rule: rule,
                keepsErrors: fallback != nil)
        }
        report(.validating(url, etag: candidate.entry.etag, lastModified: candidate.entry.lastModified))
        let requestTime = now()
        let response = try await inner.send(conditional)
        let times = ExchangeTimes(requestTime: requestTime, responseTime: now())
        guard response.statusCode == 304 else {
            // A 5xx that stale-if-error answers for must not outdate the entry it falls back on.
            if fallback != nil, FreshnessPolicy.allowsStaleIfError(status: response.statusCode) { return response }
            return await keep(response, for: request, primaryKey: primaryKey, replacing: candidate, times: times, rule: rule)
        }
        guard
            let fresh = await revalidate(
                candidate, with: response, for: request, primaryKey: primaryKey,
                times: times, rule: rule)
        else {
            return try await sendUnconditionally(
                request, primaryKey: primaryKey, replacing: nil, rule: rule,
                keepsErrors: false)
        }
        return policy.revalidatedResponse(fresh, for: request, url: response.url)
    }

    /// The entry a 304 revalidated, with its headers and exchange times freshened and written
    /// back when they changed; `nil` (and the entry removed) when the 304 does not match it.
    nonisolated(nonsending) func revalidate(
        _ candidate: Candidate, with notModified: HTTPResponse, for request: HTTPRequest,
        primaryKey: StoreKey, times: ExchangeTimes, rule: EndpointCachePolicy
    ) async -> ETagCacheEntry? {
        let url = request.url
        guard let fresh = policy.freshened(candidate.entry, with: notModified, times: times) else {
            report(.validatorMismatch(url))
            await removeEntry(for: candidate.key)
            return nil
        }
        // The entry is already in hand, so an eviction while the request was in flight does not
        // matter: the 304 is answered from this copy, which is written back when it changed in
        // a way that matters or it went missing meanwhile.
        var writeBack = policy.needsStoreUpdate(
            from: candidate.entry, to: fresh,
            timesMatter: freshness.usesAge(of: fresh, rule: rule))
        if !writeBack { writeBack = await !holdsEntry(for: candidate.key) }
        if writeBack {
            await storeEntry(fresh, primaryKey: primaryKey, request: request)
        }
        report(.revalidated(url, bodyBytes: fresh.body.count))
        return fresh
    }

    /// Sends `request` as given (it has no conditional header) and keeps what it may.
    ///
    /// - Parameter keepsErrors: Whether a 500/502/503/504 leaves `candidate` stored (for
    ///   stale-if-error) instead of being handled as a response.
    private nonisolated(nonsending) func sendUnconditionally(
        _ request: HTTPRequest, primaryKey: StoreKey, replacing candidate: Candidate?,
        rule: EndpointCachePolicy, keepsErrors: Bool
    ) async throws -> HTTPResponse {
        let requestTime = now()
        let response = try await inner.send(request)
        let times = ExchangeTimes(requestTime: requestTime, responseTime: now())
        guard response.statusCode != 304 else {
            throw TransportError(
                .invalidResponse, method: request.method, url: request.url,
                message: "the server answered 304 Not Modified to a request without If-None-Match "
                    + "or If-Modified-Since; ETagTransport has no stored body to answer it with")
        }
        if keepsErrors, FreshnessPolicy.allowsStaleIfError(status: response.statusCode) { return response }
        return await keep(response, for: request, primaryKey: primaryKey, replacing: candidate, times: times, rule: rule)
    }

    /// Stores a full response when the policy allows it, and drops an entry it outdates.
    nonisolated(nonsending) func keep(
        _ response: HTTPResponse, for request: HTTPRequest, primaryKey: StoreKey,
        replacing candidate: Candidate?, times: ExchangeTimes, rule: EndpointCachePolicy
    ) async -> HTTPResponse {
        let url = request.url
        if request.method == .head {
            if let candidate, policy.headResponse(response, outdates: candidate.entry) {
                await removeEntry(for: candidate.key)
                report(.invalidated(url))
            }
            return response
        }
        // The usual repeat (a server that ignores If-None-Match) is seen in place, without
        // building the entry that would not be stored.
        if let candidate, candidate.key == primaryKey,
            policy.repeatsStoredEntry(
                candidate.entry, in: response, to: request,
                timesMatter: freshness.usesAge(of: candidate.entry, rule: rule)),
            await holdsEntry(for: primaryKey)
        {
            return response
        }
        switch policy.storeDecision(
            for: response, to: request, times: times, rule: rule, sharedStorage: store.isSharedStorage)
        {
        case .store(let entry):
            // An entry stored already, byte for byte where it matters, is not written again:
            // that would only cost the store's work (for Redis, a round trip carrying the body).
            if let candidate, await isAlreadyStored(entry, as: candidate, primaryKey: primaryKey, rule: rule) {
                return response
            }
            await storeEntry(entry, primaryKey: primaryKey, request: request)
            report(.stored(url, bodyBytes: entry.body.count))
        case .doNotStore(let reason):
            // A new representation (or a 404, a 410...) that may not be stored still outdates
            // what was stored before it.
            if let candidate, ConditionalRequestPolicy.outdatesStoredResponse(status: response.statusCode) {
                await removeEntry(for: candidate.key)
            }
            report(.notStored(url, reason: reason))
        }
        return response
    }

    /// Whether `entry`, from a 200, is what `candidate` already holds: a server that ignores
    /// `If-None-Match` (or a stored response without a validator) sends the same representation
    /// again. The rule is a 304's write-back rule: same status, body and lasting headers, and
    /// exchange times that nothing reads, in the new response or in the stored one (a stored
    /// `Expires` the new response dropped must go: the new response replaces it whole, RFC 9111
    /// §3.2). Only an entry from the same final URL, without `Vary`, stored under the primary
    /// key, and still in the store (it may have been evicted meanwhile).
    private nonisolated(nonsending) func isAlreadyStored(
        _ entry: ETagCacheEntry, as candidate: Candidate, primaryKey: StoreKey,
        rule: EndpointCachePolicy
    ) async -> Bool {
        let timesMatter = freshness.usesAge(of: entry, rule: rule) || freshness.usesAge(of: candidate.entry, rule: rule)
        guard candidate.key == primaryKey, entry.url == candidate.entry.url,
            entry.varyHeaderNames.isEmpty, candidate.entry.varyHeaderNames.isEmpty,
            !policy.needsStoreUpdate(from: candidate.entry, to: entry, timesMatter: timesMatter)
        else { return false }
        return await holdsEntry(for: candidate.key)
    }

    /// The stale entry of `fallback` as the response, when it is still within its window.
    func staleResponse(_ fallback: StaleFallback, for request: HTTPRequest, failure: String) -> HTTPResponse? {
        guard let age = fallback.allowance.ageIfAllowed(after: now().timeIntervalSince(fallback.decidedAt)) else {
            return nil
        }
        let field = EntryAge.fieldValue(ofAge: age)
        report(.servedStale(request.url, age: field, reason: .originFailed(failure: failure)))
        return storedAnswer(fallback.candidate.entry, to: request, age: field, source: .stale)
    }

    /// Whether `error` is a failure to reach or hear from the origin, which stale-if-error
    /// covers: a timeout, a refused or lost connection, an invalid response. Not a TLS or
    /// pinning failure (the origin could not be verified), an invalid request, a redirect loop
    /// or cancellation.
    static func allowsStaleIfError(_ error: any Error) -> Bool {
        guard let error = error as? TransportError else { return false }
        switch error.kind {
        case .timedOut, .cannotConnect, .connectionLost, .invalidResponse, .other: return true
        case .tls, .invalidRequest, .tooManyRedirects: return false
        }
    }

    /// What failed, for the event: the error's kind, never its message (which names the URL).
    static func failureSummary(_ error: any Error) -> String {
        (error as? TransportError).map { $0.kind.rawValue } ?? String(describing: type(of: error))
    }
}
