#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// A decorator that makes `GET` requests conditional and answers `304 Not Modified` with the
/// body it stored, so an unchanged resource is not downloaded again.
///
/// Put it below retry and above the terminal transport:
/// ```swift
/// let store = try FileETagStore(directory: cachesDirectory.appending(path: "etags"))
/// let transport = ETagTransport(inner: URLSessionTransport(), store: store)
/// let response = try await transport.send(HTTPRequest(url: profileURL))
/// if response.source == .revalidated { /* the server said 304; the body came from the store */ }
/// ```
///
/// ## Behaviour
/// - `GET` 200 responses with an `ETag` or `Last-Modified` are stored (never with
///   `Cache-Control: no-store` on the request or response, never with `Vary: *`).
/// - A later `GET` or `HEAD` of the same URL, by the same identity, with the same values of the
///   request fields the response's `Vary` named, is sent with `If-None-Match` (or
///   `If-Modified-Since` when only `Last-Modified` is known).
/// - A 304 that matches the entry comes back as the stored status (200) with the stored body
///   (none for `HEAD`), the stored headers freshened by the 304's (except `Content-Length`),
///   and ``HTTPResponse/source`` set to ``HTTPResponse/Source/revalidated``: that is how a
///   caller tells a revalidated response from a downloaded one. The store is updated.
/// - A 304 that does not match is answered by re-sending the request once without conditional
///   headers; the caller never sees a 304 it did not ask for.
/// - A request that already carries a conditional header (or `Range`) passes through untouched:
///   the caller's request, the caller's 304.
/// - A successful `POST`, `PUT`, `PATCH` or `DELETE` removes the entries of its URL (and of a
///   same-origin `Location`/`Content-Location`) for the requesting identity. Other identities'
///   entries stay, but this layer always asks the server, so they only serve as validators.
/// - Entries are partitioned (see ``CachePartition``): by the request's credentials, or by a
///   partition the caller names so that a token refresh keeps them; and, either way, by the
///   client certificate the transport below will present, when it reports one
///   (``CacheIdentityProviding``: `PinningTransport` does, and Strata's own decorators between
///   pass it on). One identity's body is never served to another, and no credential, partition
///   name or certificate is ever written to the store.
/// - The store cannot fail a request: a store that loses or cannot read an entry makes the
///   request a plain one.
///
/// The rules live in ``ConditionalRequestPolicy``, a pure value; this type only does the I/O.
public struct ETagTransport: Transport {
    /// The transport that sends requests.
    public let inner: any Transport
    let store: any ETagStoreProtocol
    let policy: ConditionalRequestPolicy
    /// The largest streamed body kept for the store, copied as the caller reads it; a larger one
    /// is handed on without being kept.
    let maxStreamedBodyBytes: Int
    private let identityDigests = IdentityDigestMemo()
    /// `inner`, when it can tell which client certificate a request will be sent with.
    private let clientIdentities: (any CacheIdentityProviding)?

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
    ///   - maxStreamedBodyBytes: The largest body of a streamed response (``stream(_:_:)``) kept
    ///     for the store, copied while the caller reads it; a larger one is not stored and costs
    ///     no memory here. Default: 8 MiB, `FileETagStore`'s default entry limit.
    public init(inner: any Transport, store: any ETagStoreProtocol = InMemoryETagStore(),
                policy: ConditionalRequestPolicy = ConditionalRequestPolicy(), maxStreamedBodyBytes: Int = 8 << 20) {
        self.inner = inner
        clientIdentities = inner as? any CacheIdentityProviding
        self.store = store
        self.policy = policy
        self.maxStreamedBodyBytes = max(0, maxStreamedBodyBytes)
    }

    /// Reports what the layer did to the observers above (see ``ETagEvent``).
    func report(_ event: @autoclosure () -> ETagEvent) {
        TransportEvents.emit(event())
    }

    /// Sends `request`, conditionally when a usable entry is stored.
    ///
    /// - Returns: The server's response, or, after a matching 304, the stored response
    ///   freshened and marked ``HTTPResponse/Source/revalidated``.
    /// - Throws: What the inner transport throws, and ``TransportError`` with
    ///   ``TransportError/Kind/invalidResponse`` when the server answers 304 to a request that
    ///   carried no conditional header.
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
            return try await sendUsingStore(request)
        }
    }

    struct Candidate {
        var entry: ETagCacheEntry
        var key: String
    }

    /// The primary key of `request`, in the partition of the client identity it will be sent with.
    func primaryKey(for request: HTTPRequest) -> String {
        policy.primaryKey(for: request, clientIdentity: clientIdentities?.cacheIdentity(for: request.url),
                          memo: identityDigests)
    }

    private func sendUsingStore(_ request: HTTPRequest) async throws -> HTTPResponse {
        let url = request.url
        let primaryKey = primaryKey(for: request)
        guard let candidate = await lookUp(request, primaryKey: primaryKey),
              let conditional = policy.conditionalRequest(request, validating: candidate.entry) else {
            report(.miss(url))
            return try await sendUnconditionally(request, primaryKey: primaryKey, replacing: nil)
        }
        report(.validating(url, etag: candidate.entry.etag, lastModified: candidate.entry.lastModified))
        let response = try await inner.send(conditional)
        guard response.statusCode == 304 else {
            return await keep(response, for: request, primaryKey: primaryKey, replacing: candidate)
        }
        guard let fresh = await revalidate(candidate, with: response, for: request, primaryKey: primaryKey) else {
            return try await sendUnconditionally(request, primaryKey: primaryKey, replacing: nil)
        }
        return policy.revalidatedResponse(fresh, for: request, url: response.url)
    }

    /// The entry a 304 revalidated, with its headers freshened and written back when they
    /// changed; `nil` (and the entry removed) when the 304 does not match it.
    func revalidate(_ candidate: Candidate, with notModified: HTTPResponse, for request: HTTPRequest,
                    primaryKey: String) async -> ETagCacheEntry? {
        let url = request.url
        guard let fresh = policy.freshened(candidate.entry, with: notModified) else {
            report(.validatorMismatch(url))
            await store.remove(for: candidate.key)
            return nil
        }
        // The entry is already in hand, so an eviction while the request was in flight does not
        // matter: the 304 is answered from this copy, which is written back when its headers
        // changed or it went missing meanwhile.
        var writeBack = policy.needsStoreUpdate(from: candidate.entry, to: fresh)
        if !writeBack { writeBack = await !store.containsEntry(for: candidate.key) }
        if writeBack {
            for key in policy.storageKeys(for: fresh, primaryKey: primaryKey, request: request) {
                await store.store(fresh, for: key)
            }
        }
        report(.revalidated(url, bodyBytes: fresh.body.count))
        return fresh
    }

    /// Sends `request` as given (it has no conditional header) and keeps what it may.
    private func sendUnconditionally(_ request: HTTPRequest, primaryKey: String, replacing candidate: Candidate?) async throws -> HTTPResponse {
        let response = try await inner.send(request)
        guard response.statusCode != 304 else {
            throw TransportError(.invalidResponse, method: request.method, url: request.url,
                                 message: "the server answered 304 Not Modified to a request without If-None-Match "
                                     + "or If-Modified-Since; ETagTransport has no stored body to answer it with")
        }
        return await keep(response, for: request, primaryKey: primaryKey, replacing: candidate)
    }

    /// Stores a full response when the policy allows it, and drops an entry it outdates.
    private func keep(_ response: HTTPResponse, for request: HTTPRequest, primaryKey: String,
                      replacing candidate: Candidate?) async -> HTTPResponse {
        let url = request.url
        if request.method == .head {
            if let candidate, policy.headResponse(response, outdates: candidate.entry) {
                await store.remove(for: candidate.key)
                report(.invalidated(url))
            }
            return response
        }
        switch policy.storeDecision(for: response, to: request) {
        case .store(let entry):
            for key in policy.storageKeys(for: entry, primaryKey: primaryKey, request: request) {
                await store.store(entry, for: key)
            }
            report(.stored(url, bodyBytes: entry.body.count))
        case .doNotStore(let reason):
            // A 200 that may not be stored still outdates what was stored before it.
            if let candidate, response.statusCode == 200 { await store.remove(for: candidate.key) }
            report(.notStored(url, reason: reason))
        }
        return response
    }

    /// The stored entry that may answer `request`: the primary key's, or the variant its `Vary`
    /// points to.
    func lookUp(_ request: HTTPRequest, primaryKey: String) async -> Candidate? {
        guard let primary = await store.cachedResponse(for: primaryKey) else { return nil }
        if policy.selects(primary, for: request) { return Candidate(entry: primary, key: primaryKey) }
        let names = primary.varyHeaderNames
        guard !names.isEmpty else { return nil }
        let variantKey = policy.variantKey(primaryKey: primaryKey, varyNames: names, request: request)
        guard let variant = await store.cachedResponse(for: variantKey), policy.selects(variant, for: request) else {
            return nil
        }
        return Candidate(entry: variant, key: variantKey)
    }

    /// Removes the entries `request`'s identity has for `url`: the primary entry and the
    /// variant the request would select.
    func invalidate(_ url: URL, asSeenBy request: HTTPRequest) async {
        var lookup = request
        lookup.url = url
        let primaryKey = primaryKey(for: lookup)
        if let primary = await store.cachedResponse(for: primaryKey), !primary.varyHeaderNames.isEmpty {
            await store.remove(for: policy.variantKey(primaryKey: primaryKey, varyNames: primary.varyHeaderNames,
                                                      request: lookup))
        }
        await store.remove(for: primaryKey)
        report(.invalidated(url))
    }
}

extension TransportLayer {
    /// An ``ETagTransport`` layer, for a ``TransportStack``.
    public static func etag(store: any ETagStoreProtocol = InMemoryETagStore(),
                            policy: ConditionalRequestPolicy = ConditionalRequestPolicy()) -> TransportLayer {
        TransportLayer { ETagTransport(inner: $0, store: store, policy: policy) }
    }
}
