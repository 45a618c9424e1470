import Strata

/// What every pooled connection of one transport shares: the TLS context (one per trust
/// configuration), timeouts and response limits.
struct ConnectionSettings: Sendable {
    let context: TLSClientContext
    let timeouts: TLSStream.Timeouts
    let limits: HTTPLimits
    /// Accept a close-delimited body ended without a TLS close_notify (a sloppy server).
    var acceptsBodyEndWithoutCloseNotify = false
    /// The process-wide bound on connection slots (tests pass their own).
    var threads = ConnectionThreadLimit.processWide
    /// How connections reach their hosts: name resolution (tests inject a resolver), address
    /// racing, the proxy.
    var connector = OriginConnector()
    /// The client certificates presented per host.
    var identities = ClientIdentities.none
    /// The clock the pool's idle expiry reads (injectable for tests); deadlines and timeouts
    /// always use the real `ContinuousClock`, since the sockets wait in real time.
    let clock: ErasedClock

    var roots: TrustRoots { context.roots }
}
