#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// A transport that can tell which client identity (a TLS client certificate) a request would
/// be sent with, so that a cache above it never answers one identity with another's body.
///
/// A server that identifies its callers by their certificate alone sends the same validators to
/// all of them (nginx's static `ETag` is the file's mtime and size). Without this, two stacks
/// with different certificates sharing one ``ETagStoreProtocol`` would answer the second
/// caller's 304 with the first caller's body. ``ETagTransport`` asks its `inner` once, at init:
/// when it conforms, the answer for each request's URL becomes part of that request's
/// ``CachePartition``.
///
/// - A terminal transport that presents client certificates (`PinningTransport`) answers.
/// - A decorator that may sit between ``ETagTransport`` and such a transport forwards the
///   question to its own `inner` (Strata's ``LoggingTransport``, ``ObservingTransport``,
///   ``RetryTransport``, ``ReauthTransport`` and ``TransportStack`` do). A decorator that does not
///   conform hides the identity below it: the cache then partitions as if no certificate were
///   presented. Either make yours conform and forward, or give each client identity its own
///   ``CachePartition/named(_:)`` partition.
///
/// A decorator forwards by resolving its `inner`'s conformance once:
/// ```swift
/// struct UserAgentTransport: Transport, CacheIdentityProviding {
///     let inner: any Transport
///     private let identities: (any CacheIdentityProviding)?
///
///     init(inner: any Transport) {
///         self.inner = inner
///         identities = inner as? any CacheIdentityProviding
///     }
///
///     func cacheIdentity(for url: URL) -> String? { identities?.cacheIdentity(for: url) }
///     func send(_ request: HTTPRequest) async throws -> HTTPResponse { try await inner.send(request) }
/// }
/// ```
public protocol CacheIdentityProviding: Sendable {
    /// The client identity a request for `url` would be presented with, as a stable value that
    /// differs between identities, or `nil` when no client certificate would be presented.
    ///
    /// The value must not be secret (a certificate's SPKI pin is a good one; never a private
    /// key or a password): ``ETagTransport`` only writes its SHA-256 digest into keys, but others
    /// may log it. It must be cheap, as it is asked once per cached request, and it must not
    /// change while the same certificate would be presented, or cached entries are orphaned.
    ///
    /// - Parameter url: The request's URL.
    /// - Returns: The identity, or `nil` for none.
    func cacheIdentity(for url: URL) -> String?
}
