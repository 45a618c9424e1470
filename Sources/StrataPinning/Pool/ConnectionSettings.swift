import Strata

/// What every pooled connection of one transport shares: the TLS context (one per trust
/// configuration), timeouts and response limits.
struct ConnectionSettings: Sendable {
    let context: TLSClientContext
    let timeouts: TLSStream.Timeouts
    let limits: HTTP1Limits
    /// The clock the pool's idle expiry reads (injectable for tests); deadlines and timeouts
    /// always use the real `ContinuousClock`, since the sockets wait in real time.
    let clock: ErasedClock

    var roots: TrustRoots { context.roots }
}
