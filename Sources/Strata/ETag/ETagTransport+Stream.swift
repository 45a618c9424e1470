import Foundation

extension ETagTransport {
    /// Streams `request`: answered from the store as ``send(_:)`` answers it (fresh, stale,
    /// `only-if-cached`), otherwise sent, conditionally when a usable entry is stored. Streams
    /// are not coalesced: each caller reads its own body.
    ///
    /// A matching 304 to the layer's own validators never reaches `consume`: it is answered with
    /// the stored body, as ``send(_:)`` does. A request with the caller's own `If-None-Match` or
    /// `If-Modified-Since` gets the `304` it asked for, from the store or from the origin.
    /// Within `stale-if-error`, a failure before `consume` is called or a 500/502/503/504 head
    /// is answered with the stale entry; past it, that head reaches `consume` with its own body.
    /// A response that may be stored is copied for the store while `consume` reads it, up to
    /// `maxStreamedBodyBytes`, and stored only when `consume` read it to its end; a larger body
    /// is handed on without a copy and not stored.
    ///
    /// - Throws: What the inner transport or `consume` throws, and ``TransportError`` with
    ///   ``TransportError/Kind/invalidResponse`` for a 304 to a request without a validator.
    public func stream<Result: Sendable>(
        _ request: HTTPRequest,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        switch policy.plan(for: request) {
        case .passThrough(let reason):
            report(.passedThrough(request.url, reason: reason))
            return try await inner.stream(request, consume)
        case .invalidateOnSuccess:
            return try await inner.stream(request) { head, body in
                let response = HTTPResponse(statusCode: head.statusCode, headers: head.headers, url: head.url)
                if policy.invalidates(response) {
                    for url in policy.invalidatedURLs(request: request, response: response) {
                        await invalidate(url, asSeenBy: request)
                    }
                }
                return try await consume(head, body)
            }
        case .useStore:
            let rule = EndpointCachePolicy.current
            guard rule != .neverStore else {
                report(.passedThrough(request.url, reason: .endpointNeverStores))
                return try await inner.stream(request, consume)
            }
            switch await answerFromStore(request, rule: rule) {
            case .answered(let response):
                return try await consume(response.head, HTTPBody(response.body))
            case .network(let primaryKey, let candidate, let fallback):
                return try await streamUsingStore(
                    request, primaryKey: primaryKey, candidate: candidate, rule: rule,
                    fallback: fallback, consume)
            }
        }
    }

    /// Streams `request` to the network; within `fallback`'s window, a failure before `consume`
    /// saw anything, or a 500/502/503/504 head, is answered with the stale entry. Past the
    /// window, such a head reaches `consume` with its own body.
    private func streamUsingStore<Result: Sendable>(
        _ request: HTTPRequest, primaryKey: StoreKey, candidate: Candidate?, rule: EndpointCachePolicy,
        fallback: StaleFallback?, _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        let consumed = LockedValue(false)
        let step: StreamStep<Result>
        do {
            step = try await streamRevalidating(
                request, primaryKey: primaryKey, candidate: candidate, rule: rule,
                fallback: fallback
            ) { head, body in
                consumed.withLock { $0 = true }
                return try await consume(head, body)
            }
        } catch {
            guard let fallback, !consumed.withLock({ $0 }), !Task.isCancelled, Self.allowsStaleIfError(error),
                let stale = staleResponse(fallback, for: request, failure: Self.failureSummary(error))
            else { throw error }
            return try await consume(stale.head, HTTPBody(stale.body))
        }
        switch step {
        case .consumed(let result):
            return result
        case .intercepted(let stale):
            // A 5xx head within the window (decided while reading it): the stale entry answers.
            return try await consume(stale.head, HTTPBody(stale.body))
        }
    }

    /// Streams `request`, conditionally when `candidate` has a validator. A 5xx head that
    /// `fallback` answers for now is intercepted (its body unread) as the stale response
    /// instead of consumed.
    private func streamRevalidating<Result: Sendable>(
        _ request: HTTPRequest, primaryKey: StoreKey, candidate: Candidate?, rule: EndpointCachePolicy,
        fallback: StaleFallback?, _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> StreamStep<Result> {
        // RFC 9111 §4.3.2: the caller's own validators go to the origin as they are.
        if CallerPreconditions.arePresent(in: request.headers) {
            return try await streamForwardingCallerConditional(
                request, primaryKey: primaryKey, candidate: candidate, rule: rule, fallback: fallback, consume)
        }
        guard let candidate, let conditional = policy.conditionalRequest(request, validating: candidate.entry) else {
            report(.miss(request.url))
            return try await streamUnconditionally(
                request, primaryKey: primaryKey, replacing: candidate, rule: rule,
                fallback: fallback, consume)
        }
        report(.validating(request.url, etag: candidate.entry.etag, lastModified: candidate.entry.lastModified))
        let requestTime = now()
        let step = try await inner.stream(conditional) { head, body -> StreamStep<Result> in
            let times = ExchangeTimes(requestTime: requestTime, responseTime: now())
            if let stale = staleAnswer(to: head, fallback: fallback, for: request) { return .intercepted(stale) }
            if fallback != nil, FreshnessPolicy.allowsStaleIfError(status: head.statusCode) {
                // Past the window: the failure is the answer, with its body; the entry stays.
                return .consumed(try await consume(head, body))
            }
            guard head.statusCode == 304 else {
                return .consumed(
                    try await consumeKeeping(
                        head, body, for: request, primaryKey: primaryKey,
                        replacing: candidate, times: times, rule: rule, consume))
            }
            return .intercepted(HTTPResponse(statusCode: 304, headers: head.headers, url: head.url))
        }
        let notModified: HTTPResponse
        switch step {
        case .consumed: return step
        case .intercepted(let response) where response.statusCode != 304: return step // The stale answer to a 5xx.
        case .intercepted(let response): notModified = response
        }
        let times = ExchangeTimes(requestTime: requestTime, responseTime: now())
        guard
            let fresh = await revalidate(
                candidate, with: notModified, for: request, primaryKey: primaryKey,
                times: times, rule: rule)
        else {
            return try await streamUnconditionally(
                request, primaryKey: primaryKey, replacing: nil, rule: rule,
                fallback: nil, consume)
        }
        let revalidated = policy.revalidatedResponse(fresh, for: request, url: notModified.url)
        return .consumed(try await consume(revalidated.head, HTTPBody(revalidated.body)))
    }

    /// Streams `request` as given (it has no conditional header) and keeps what it may.
    private func streamUnconditionally<Result: Sendable>(
        _ request: HTTPRequest, primaryKey: StoreKey, replacing candidate: Candidate?, rule: EndpointCachePolicy,
        fallback: StaleFallback?, _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> StreamStep<Result> {
        let requestTime = now()
        return try await inner.stream(request) { head, body in
            guard head.statusCode != 304 else {
                throw TransportError(
                    .invalidResponse, method: request.method, url: request.url,
                    message: "the server answered 304 Not Modified to a request without If-None-Match "
                        + "or If-Modified-Since; ETagTransport has no stored body to answer it with")
            }
            if let stale = staleAnswer(to: head, fallback: fallback, for: request) { return .intercepted(stale) }
            if fallback != nil, FreshnessPolicy.allowsStaleIfError(status: head.statusCode) {
                // Past the window: the failure is the answer, with its body; the entry stays.
                return .consumed(try await consume(head, body))
            }
            let times = ExchangeTimes(requestTime: requestTime, responseTime: now())
            return .consumed(
                try await consumeKeeping(
                    head, body, for: request, primaryKey: primaryKey,
                    replacing: candidate, times: times, rule: rule, consume))
        }
    }

    /// The stale response that answers for a 500/502/503/504 `head`, when `fallback`'s window
    /// still allows it.
    func staleAnswer(to head: HTTPResponseHead, fallback: StaleFallback?, for request: HTTPRequest) -> HTTPResponse? {
        guard let fallback, FreshnessPolicy.allowsStaleIfError(status: head.statusCode) else { return nil }
        return staleResponse(fallback, for: request, failure: "HTTP \(head.statusCode)")
    }

    /// Hands a full response to `consume`, keeping a copy of its body for the store when the
    /// policy allows it and it is small enough, and storing it once `consume` has read it all.
    func consumeKeeping<Result: Sendable>(
        _ head: HTTPResponseHead, _ body: HTTPBody, for request: HTTPRequest, primaryKey: StoreKey,
        replacing candidate: Candidate?, times: ExchangeTimes, rule: EndpointCachePolicy,
        _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        let response = HTTPResponse(statusCode: head.statusCode, headers: head.headers, url: head.url)
        if request.method == .head {
            if let candidate, policy.headResponse(response, outdates: candidate.entry) {
                await removeEntry(for: candidate.key)
                report(.invalidated(request.url))
            }
            return try await consume(head, body)
        }
        var entry: ETagCacheEntry
        switch policy.storeDecision(
            for: response, to: request, times: times, rule: rule, sharedStorage: store.isSharedStorage)
        {
        case .store(let decided):
            entry = decided
        case .doNotStore(let reason):
            // A new representation (or a 404, a 410...) that may not be stored still outdates
            // what was stored before it.
            if let candidate, ConditionalRequestPolicy.outdatesStoredResponse(status: response.statusCode) {
                await removeEntry(for: candidate.key)
            }
            report(.notStored(request.url, reason: reason))
            return try await consume(head, body)
        }
        if let length = body.length, length > Int64(maxStreamedBodyBytes) {
            await forget(candidate, for: request, reason: .streamedBodyTooLarge)
            return try await consume(head, body)
        }
        let copy = StreamedBodyCopy(limit: maxStreamedBodyBytes)
        let result = try await consume(head, body.tapped(onChunk: copy.append, onEnd: copy.finish))
        guard let bytes = copy.completeBytes else {
            await forget(candidate, for: request, reason: copy.overflowed ? .streamedBodyTooLarge : .streamedBodyUnfinished)
            return result
        }
        entry.body = Data(bytes)
        await storeEntry(entry, primaryKey: primaryKey, request: request)
        report(.stored(request.url, bodyBytes: bytes.count))
        return result
    }

    /// A new full response outdates the entry it replaces, even when it is not stored itself.
    private func forget(_ candidate: Candidate?, for request: HTTPRequest, reason: ETagEvent.NotStoredReason) async {
        if let candidate { await removeEntry(for: candidate.key) }
        report(.notStored(request.url, reason: reason))
    }
}

/// The copy of a streamed body kept for the store: bytes up to a limit, then nothing at all.
private final class StreamedBodyCopy: Sendable {
    private struct State {
        var bytes: [UInt8] = []
        var overflowed = false
        var finished = false
    }

    private let limit: Int
    private let state = LockedValue(State())

    init(limit: Int) { self.limit = limit }

    func append(_ chunk: ArraySlice<UInt8>) {
        state.withLock { state in
            guard !state.overflowed else { return }
            guard chunk.count <= limit - state.bytes.count else {
                // Past the limit the copy is dropped at once: a large body costs no memory here.
                state.overflowed = true
                state.bytes = []
                return
            }
            state.bytes += chunk
        }
    }

    func finish() { state.withLock { $0.finished = true } }

    var overflowed: Bool { state.withLock { $0.overflowed } }

    /// The whole body, when the reader reached its end within the limit.
    var completeBytes: [UInt8]? {
        state.withLock { $0.finished && !$0.overflowed ? $0.bytes : nil }
    }
}
