#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// A decorator that answers `GET`s from a store: fresh responses with no network, stale ones
/// conditionally (`If-None-Match` / `If-Modified-Since`), a `304 Not Modified` with the body it
/// stored, and identical concurrent requests with one exchange. A private HTTP cache (RFC 9111)
/// that is also the conditional-request layer.
///
/// Put it below retry and above the terminal transport:
/// ```swift
/// let store = try FileETagStore(directory: cachesDirectory.appending(path: "etags"))
/// let transport = ETagTransport(inner: URLSessionTransport(), store: store)
/// let response = try await transport.send(HTTPRequest(url: profileURL))
/// switch response.source {
/// case .fresh: break        // served from the store, no network (max-age, Expires)
/// case .revalidated: break  // the server said 304; the body came from the store
/// default: break            // .network, or .stale (stale-while-revalidate, stale-if-error)
/// }
/// ```
///
/// ## Freshness (RFC 9111 §4.2, RFC 5861)
/// Every decision comes from ``FreshnessPolicy`` (a pure function of the request, the entry and
/// the time), the endpoint's ``EndpointCachePolicy``, and the store's
/// ``ETagStoreProtocol/isSharedStorage``:
/// - A stored response that is fresh (`max-age`, else `Expires` − `Date`; `s-maxage` first in a
///   shared store, ignored in a private one; heuristic freshness only when the policy or the
///   endpoint enables it) answers with no network, with an
///   `Age` field computed as §4.2.3 says and ``HTTPResponse/source`` ``HTTPResponse/Source/fresh``.
/// - `no-cache` on the response, or the request's `no-cache`, `max-age`, `min-fresh`, send it
///   to the server; `must-revalidate` and `no-cache` (in a shared store also `s-maxage` and
///   `proxy-revalidate`) forbid serving it stale. The request's
///   `max-stale` accepts a stale one; `only-if-cached` gets a `504` when nothing usable is stored.
/// - Within `stale-while-revalidate`, a stale response answers at once (source
///   ``HTTPResponse/Source/stale``) and one background request per entry revalidates it
///   through `inner`. Within `stale-if-error` (the response's, the request's, or the policy's
///   default), a failure, a timeout or a 500/502/503/504 while revalidating is answered with
///   the stale response.
/// - Concurrent identical `GET`s that must go to the network make one request (see
///   ``send(_:)``). ``stream(_:_:)`` uses fresh and stale responses alike but is not coalesced.
///
/// ## Conditional requests
/// - `GET` responses with an `ETag`, `Last-Modified` or a freshness lifetime are stored
///   (never with `Cache-Control: no-store` on the request or response, never with `Vary: *`):
///   200s and the other statuses RFC 9110 §15.1 calls heuristically cacheable (not 206), any
///   other status with explicit freshness or `public`, never a status that asks for a retry
///   (401, 407, 408, 429, 500, 502, 503, 504). A stored 404 answers with its own status.
/// - A later `GET` or `HEAD` of the same URL, by the same identity, with the same values of the
///   request fields the response's `Vary` named, that may not be answered from the store, is
///   sent with `If-None-Match` (or `If-Modified-Since` when only `Last-Modified` is known).
/// - A 304 that matches the entry comes back as the stored status (a 200, a 404...) with the stored body
///   (none for `HEAD`), the stored headers freshened by the 304's (except `Content-Length`),
///   and ``HTTPResponse/source`` set to ``HTTPResponse/Source/revalidated``: that is how a
///   caller tells a revalidated response from a downloaded one. The store is updated.
/// - A 304 that does not match is answered by re-sending the request once without conditional
///   headers; the caller never sees a 304 it did not ask for.
/// - A request with the caller's own `If-None-Match` or `If-Modified-Since` (RFC 9111 §4.3.2)
///   is answered by a stored response that may answer it: a `304` made from the store when the
///   caller's validators match it (`If-None-Match` weakly, or else `If-Modified-Since` against
///   its `Last-Modified`), the stored response in full when they do not. Otherwise it goes to the
///   origin with the caller's validators untouched, and the origin's `304` is the caller's.
///   `If-Match`, `If-Unmodified-Since`, `If-Range` and `Range` pass through untouched.
/// - A successful request whose method is not known to be safe (`POST`, `PUT`, `PATCH`,
///   `DELETE`, and any method but `GET`, `HEAD`, `OPTIONS` and `TRACE`) removes the entries of
///   its URL (and of a same-origin `Location`/`Content-Location`) for the requesting identity.
/// - Entries are partitioned (see ``CachePartition``): by the request's credentials, or by a
///   partition the caller names so that a token refresh keeps them; and, either way, by the
///   client certificate the transport below will present, when it reports one
///   (``CacheIdentityProviding``: `PinningTransport` does, and Strata's own decorators between
///   pass it on). One identity's body is never served to another, and no credential, partition
///   name or certificate is ever written to the store.
/// - The store cannot fail a request: a store that loses or cannot read an entry makes the
///   request a plain one.
///
/// The rules live in ``ConditionalRequestPolicy`` and ``FreshnessPolicy``, pure values; this
/// type only does the I/O.
public struct ETagTransport: Transport {
    /// The transport that sends requests.
    public let inner: any Transport
    let store: any ETagStoreProtocol
    /// `store`, when it is an ``InMemoryETagStore``: read in place, without an async call
    /// through the protocol (two on every request that goes to the network).
    private let memoryStore: InMemoryETagStore?
    let policy: ConditionalRequestPolicy
    let freshness: FreshnessPolicy
    /// The largest streamed body kept for the store, copied as the caller reads it; a larger one
    /// is handed on without being kept.
    let maxStreamedBodyBytes: Int
    private let identityDigests = IdentityDigestMemo()
    /// `inner`, when it can tell which client certificate a request will be sent with.
    private let clientIdentities: (any CacheIdentityProviding)?
    /// The current wall-clock time: ages are wall-clock differences (`Date` fields, and exchange
    /// times another instance may have stored).
    private let wallClock: @Sendable () -> Date
    let inFlight = InFlightRequests()
    /// The registry of background refreshes; `nil` in the copy a refresh runs with, so that a
    /// running refresh does not keep the registry (and its transport) alive.
    var backgroundRefreshes: BackgroundRefreshes?

    /// Creates the decorator.
    ///
    /// When `inner` conforms to ``CacheIdentityProviding`` (a `PinningTransport`, or one of
    /// Strata's decorators above it), the client identity it reports for each URL is part of that
    /// request's partition. The conformance is looked up here, once: a decorator that does not
    /// conform, between this layer and the one presenting certificates, hides the certificate;
    /// then give each client identity its own ``CachePartition/named(_:)`` partition.
    ///
    /// - Parameters:
    ///   - inner: The transport that sends requests.
    ///   - store: Where responses are kept. Default: an ``InMemoryETagStore``.
    ///   - policy: Keying rules: which request fields identify a user, which partition to use.
    ///   - freshness: When stored responses are served without the network. Default: as the
    ///     responses' headers say, no heuristic freshness, no default `stale-if-error`.
    ///   - maxStreamedBodyBytes: The largest body of a streamed response (``stream(_:_:)``) kept
    ///     for the store, copied while the caller reads it; a larger one is not stored and costs
    ///     no memory here. Default: 8 MiB, `FileETagStore`'s default entry limit.
    ///   - clock: The clock ages are measured on. Default: `ContinuousClock()`, which means the
    ///     system's wall clock (`Date()`); with another clock (tests pass a `TestClock` and move
    ///     it), the wall-clock time at creation plus the time elapsed on that clock.
    public init(
        inner: any Transport, store: any ETagStoreProtocol = InMemoryETagStore(),
        policy: ConditionalRequestPolicy = ConditionalRequestPolicy(),
        freshness: FreshnessPolicy = FreshnessPolicy(), maxStreamedBodyBytes: Int = 8 << 20,
        clock: some Clock<Duration> = ContinuousClock()
    ) {
        self.init(
            inner: inner, store: store, policy: policy, freshness: freshness,
            maxStreamedBodyBytes: maxStreamedBodyBytes, clock: clock, wallClockOrigin: Date())
    }

    /// Creates the decorator with the wall-clock time `clock`'s present stands for, so tests can
    /// write `Date` fields that agree with it exactly.
    package init<C: Clock<Duration>>(
        inner: any Transport, store: any ETagStoreProtocol = InMemoryETagStore(),
        policy: ConditionalRequestPolicy = ConditionalRequestPolicy(),
        freshness: FreshnessPolicy = FreshnessPolicy(), maxStreamedBodyBytes: Int = 8 << 20,
        clock: C, wallClockOrigin: Date
    ) {
        self.inner = inner
        clientIdentities = inner as? any CacheIdentityProviding
        self.store = store
        memoryStore = store as? InMemoryETagStore
        self.policy = policy
        self.freshness = freshness
        self.maxStreamedBodyBytes = max(0, maxStreamedBodyBytes)
        if C.self == ContinuousClock.self {
            // The default clock: the system's wall clock itself, read directly (a fresh hit reads
            // it on every request), and corrected by NTP as the servers' Date fields are.
            wallClock = { Date() }
        } else {
            let elapsed = ErasedClock(clock)
            wallClock = { wallClockOrigin.addingTimeInterval(elapsed.elapsed().inSeconds) }
        }
        backgroundRefreshes = BackgroundRefreshes(limit: freshness.maxBackgroundRefreshes)
    }

    /// The current wall-clock time, on the transport's clock.
    func now() -> Date {
        wallClock()
    }

    /// Cancels the background refreshes still running, starts no more, and returns when they
    /// have ended. Requests keep working (and a stale response within `stale-while-revalidate`
    /// is still served, without a refresh). Releasing every copy of the transport cancels them too.
    public func shutDown() async {
        await backgroundRefreshes?.shutDown()
    }

    /// Waits until the background refreshes running now have ended.
    package func backgroundRefreshesSettled() async {
        await backgroundRefreshes?.settle()
    }

    /// Reports what the layer did to the observers above (see ``ETagEvent``).
    func report(_ event: @autoclosure () -> ETagEvent) {
        TransportEvents.emit(event())
    }

    /// Sends `request`: answers it from the store when a stored response may answer it,
    /// otherwise sends it (conditionally when a stored response has a validator).
    ///
    /// Concurrent identical `GET`s (same URL, partition, header fields and endpoint cache
    /// policy) that must go to the network make one request: the first caller sends it and the
    /// others await its response (or error). A waiter's cancellation or ``RequestDeadline`` ends
    /// only its own wait; when the caller who sent the request is cancelled, one of the waiters
    /// sends it again. A `GET` with a ``ResponseBodyLimit`` of its own is not coalesced.
    ///
    /// - Returns: The server's response; after a matching 304, the stored response freshened
    ///   and marked ``HTTPResponse/Source/revalidated``; a stored response marked
    ///   ``HTTPResponse/Source/fresh`` or ``HTTPResponse/Source/stale`` with its `Age`; or a
    ///   `504` (``HTTPResponse/Source/generated``) for `only-if-cached` with nothing usable.
    /// - Throws: What the inner transport throws (unless `stale-if-error` answers instead), and
    ///   ``TransportError`` with ``TransportError/Kind/invalidResponse`` when the server answers
    ///   304 to a request that carried no conditional header.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        switch policy.plan(for: request) {
        case .passThrough(let reason):
            report(.passedThrough(request.url, reason: reason))
            return try await inner.send(request)
        case .invalidateOnSuccess:
            let response = try await inner.send(request)
            if policy.invalidates(response) {
                for url in policy.invalidatedURLs(request: request, response: response) {
                    await invalidate(url, asSeenBy: request)
                }
            }
            return response
        case .useStore:
            let rule = EndpointCachePolicy.current
            guard rule != .neverStore else {
                report(.passedThrough(request.url, reason: .endpointNeverStores))
                return try await inner.send(request)
            }
            return try await sendUsingStore(request, rule: rule)
        }
    }

    struct Candidate {
        var entry: ETagCacheEntry
        var key: StoreKey
    }

    /// The primary key of `request`, in the partition of the client identity it will be sent with.
    func primaryKey(for request: HTTPRequest) -> StoreKey {
        policy.storeKey(
            for: request, clientIdentity: clientIdentities?.cacheIdentity(for: request.url),
            memo: identityDigests)
    }

    /// The stored entry that may answer `request`: the primary key's, or the variant its `Vary`
    /// points to.
    nonisolated(nonsending) func lookUp(_ request: HTTPRequest, primaryKey: StoreKey) async -> Candidate? {
        guard let primary = await storedEntry(for: primaryKey) else { return nil }
        if policy.selects(primary, for: request) { return Candidate(entry: primary, key: primaryKey) }
        let names = primary.varyHeaderNames
        guard !names.isEmpty else { return nil }
        let variantKey = StoreKey(policy.variantKey(primaryKey: primaryKey.text, varyNames: names, request: request))
        guard let variant = await storedEntry(for: variantKey), policy.selects(variant, for: request) else {
            return nil
        }
        return Candidate(entry: variant, key: variantKey)
    }

    /// The entry `store` holds under `key`.
    nonisolated(nonsending) func storedEntry(for key: StoreKey) async -> ETagCacheEntry? {
        if let memoryStore { return memoryStore.entry(for: key) }
        return await store.cachedResponse(for: key.text)
    }

    /// Whether `store` holds an entry under `key`.
    nonisolated(nonsending) func holdsEntry(for key: StoreKey) async -> Bool {
        if let memoryStore { return memoryStore.holdsEntry(for: key) }
        return await store.containsEntry(for: key.text)
    }

    /// Stores `entry` under `key` in `store`.
    nonisolated(nonsending) func put(_ entry: ETagCacheEntry, for key: StoreKey) async {
        if let memoryStore { return memoryStore.store(entry, for: key) }
        await store.store(entry, for: key.text)
    }

    /// Removes the entry under `key` from `store`.
    nonisolated(nonsending) func removeEntry(for key: StoreKey) async {
        if let memoryStore { return memoryStore.remove(key) }
        await store.remove(for: key.text)
    }

    /// Stores `entry` under the keys ``ConditionalRequestPolicy/storageKeys(for:primaryKey:request:)``
    /// gives, in their order, without building their array for the usual entry with no `Vary`.
    nonisolated(nonsending) func storeEntry(_ entry: ETagCacheEntry, primaryKey: StoreKey, request: HTTPRequest) async {
        let names = entry.varyHeaderNames
        await put(entry, for: primaryKey)
        guard !names.isEmpty else { return }
        await put(entry, for: StoreKey(policy.variantKey(primaryKey: primaryKey.text, varyNames: names, request: request)))
    }

    /// Removes the entries `request`'s identity has for `url`: the primary entry and the
    /// variant the request would select.
    func invalidate(_ url: URL, asSeenBy request: HTTPRequest) async {
        var lookup = request
        lookup.url = url
        let primaryKey = primaryKey(for: lookup).text
        if let primary = await store.cachedResponse(for: primaryKey), !primary.varyHeaderNames.isEmpty {
            await store.remove(
                for: policy.variantKey(
                    primaryKey: primaryKey, varyNames: primary.varyHeaderNames,
                    request: lookup))
        }
        await store.remove(for: primaryKey)
        report(.invalidated(url))
    }
}

extension TransportLayer {
    /// An ``ETagTransport`` layer, for a ``TransportStack``.
    public static func etag(
        store: any ETagStoreProtocol = InMemoryETagStore(),
        policy: ConditionalRequestPolicy = ConditionalRequestPolicy(),
        freshness: FreshnessPolicy = FreshnessPolicy()
    ) -> TransportLayer {
        TransportLayer { ETagTransport(inner: $0, store: store, policy: policy, freshness: freshness) }
    }
}

extension ETagTransport: EventObservationScope {
    package var mayObserveEvents: Bool { TransportEvents.mayBeObserved(within: inner) }
}
