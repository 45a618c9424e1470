import StrataPinning

/// How a ``RedisETagStore`` on a `rediss://` URL trusts its server and, when asked, proves who it
/// is: StrataPinning's own TLS vocabulary, checked the way a pinned HTTPS connection is.
///
/// OpenSSL verifies the server's chain against ``trustRoots`` and the URL's host name against
/// the certificate during the handshake; ``evaluator`` (such as a `PublicKeyPinningEvaluator`
/// with the server's SPKI pins) then sees the verified chain; only after all of that passed is
/// anything, `AUTH` included, written. A server that fails a check is unavailable, as an
/// unreachable one is: lookups are misses and no request fails.
///
/// ```swift
/// let store = try RedisETagStore(
///     url: URL(string: "rediss://fleet:secret@cache.internal:6380")!,
///     tls: RedisTLS(trustRoots: .certificates([privateCA]), clientIdentity: identity))
/// ```
public struct RedisTLS: Sendable {
    /// The certificate authorities the server's chain must lead to. Default: `.system`, the
    /// operating system's CA bundle; `.certificates([ca])` for a private CA; `.pinnedKeysOnly`
    /// only with an ``evaluator`` that requires a pinned key (the store refuses it otherwise).
    public var trustRoots: TrustRoots
    /// The client certificate and key presented when the server asks for one
    /// (`tls-auth-clients yes`); `nil` presents none.
    public var clientIdentity: ClientIdentity?
    /// Checked on the verified chain after the handshake, such as a `PublicKeyPinningEvaluator`
    /// holding the server's pins; `nil` checks nothing beyond the chain and the host name. A
    /// `ReportOnlyEvaluator` is refused: a Redis connection has nowhere to report to.
    public var evaluator: (any ServerTrustEvaluator)?

    /// Creates TLS settings; with no argument, the system's CAs and no client certificate.
    public init(
        trustRoots: TrustRoots = .system, clientIdentity: ClientIdentity? = nil,
        evaluator: (any ServerTrustEvaluator)? = nil
    ) {
        self.trustRoots = trustRoots
        self.clientIdentity = clientIdentity
        self.evaluator = evaluator
    }
}

extension RedisTLS {
    /// The TLS checks for `endpoint`: `nil` for `redis://`, `tls` (or the system's CAs when it
    /// is `nil`) for `rediss://`.
    ///
    /// - Throws: ``RedisETagStoreError/invalidParameter(_:reason:)`` for TLS settings given with a
    ///   `redis://` URL (they would silently do nothing), roots OpenSSL cannot load, a report-only
    ///   evaluator, or `.pinnedKeysOnly` without an evaluator that requires a pinned key.
    static func connector(_ tls: RedisTLS?, for endpoint: RedisEndpoint) throws(RedisETagStoreError) -> VerifiedTLSConnector? {
        guard endpoint.usesTLS else {
            guard tls == nil else {
                throw .invalidParameter("tls", reason: "TLS settings were given with a redis:// URL; write rediss:// to connect over TLS")
            }
            return nil
        }
        let tls = tls ?? RedisTLS()
        // A report-only evaluator accepts any key and reports the mismatch as an event of the
        // pinned HTTP transport; a Redis connection has no such channel, so it would only accept.
        if let evaluator = tls.evaluator, ReportOnlyEvaluator.isContained(in: evaluator) {
            throw .invalidParameter(
                "tls",
                reason: "a ReportOnlyEvaluator cannot guard a Redis connection (its reports have "
                    + "nowhere to go, so it would accept any server); use a PublicKeyPinningEvaluator")
        }
        do {
            return try VerifiedTLSConnector(
                host: endpoint.host, roots: tls.trustRoots, identity: tls.clientIdentity,
                evaluator: tls.evaluator)
        } catch {
            throw .invalidParameter("tls", reason: String(describing: error))
        }
    }
}
