/// Which certificate authorities a pinned connection trusts before any evaluator runs.
///
/// With ``system`` and ``certificates(_:)``, OpenSSL verifies the chain (signatures, validity
/// dates, CA constraints, server purpose) and the host name first; pins are checked on top of
/// that, never instead of it.
public enum TrustRoots: Sendable, Hashable {
    /// The operating system's CA bundle (OpenSSL's default paths, on Debian
    /// `/etc/ssl/certs/ca-certificates.crt`). Right for public servers.
    case system
    /// Only these certificates are trust anchors: a private CA for an internal deployment.
    /// The system bundle is not consulted.
    case certificates([Certificate])
    /// **Risky: no chain validation at all.** The handshake is accepted whatever the chain,
    /// validity dates or host name, and the evaluator sees only the leaf (the one certificate
    /// whose key the server proved it holds), so only pins of the server's own key can match.
    ///
    /// For a private deployment with a self-signed server key and no CA (a device on a LAN).
    /// Nothing expires and nothing can be revoked: a leaked key stays trusted until every client
    /// ships new pins. See SECURITY.md ("Pin-only trust") before using it.
    case pinnedKeysOnly

    /// Whether OpenSSL's chain and host-name verification runs (false only for ``pinnedKeysOnly``).
    package var verifiesChain: Bool {
        self != .pinnedKeysOnly
    }
}
