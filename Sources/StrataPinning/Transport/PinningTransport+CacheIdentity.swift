import Foundation
import Strata

extension PinningTransport: CacheIdentityProviding {
    /// The client certificates a request for `url` may be sent with, for a cache above
    /// (`ETagTransport`) to partition by; nil when it is sent with none.
    ///
    /// - When redirects are followed (``Configuration/maxRedirects`` above 0, the default), any
    ///   request may end on any pinned host, so the answer is the whole
    ///   ``Configuration/clientIdentities`` table: every host pattern with its certificate's SPKI
    ///   pin. Two transports share cached bodies only when they would present the same
    ///   certificates everywhere.
    /// - Without redirects, it is the SPKI pin of the certificate presented to `url`'s host (the
    ///   same most-specific match the handshake uses), nil for a host that is offered none.
    ///
    /// Pins and host patterns are public, and a cache writes only their digest. Renewing a
    /// certificate with the same key keeps the answer, and so the cached entries; a new key is a
    /// new identity. Nil too when the configuration is unusable (every request fails anyway).
    public func cacheIdentity(for url: URL) -> String? {
        guard case let .success(engine) = engine, let table = engine.identities.table else { return nil }
        // A redirect is followed below the cache, which keys the body by the first URL: the
        // certificate of every host the request might end on has to be in that URL's partition.
        guard maxRedirects == 0 else { return table }
        guard let host = url.host else { return nil }
        return engine.identities.identity(for: host)?.certificate.spkiPin
    }
}
