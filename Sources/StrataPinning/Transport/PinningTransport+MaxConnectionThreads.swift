import Strata

extension PinningTransport {
    /// The most connections all `PinningTransport`s of this process keep open at once (each has
    /// a dedicated thread). Default 256; values below 1 count as 1.
    ///
    /// At the limit, a request that needs a new connection first closes an idle connection of
    /// its own transport (to any host); if there is none, it fails at once with
    /// `TransportError` of kind `cannotConnect` naming this setting, rather than waiting on
    /// connections of other hosts. Set it at startup, before requests are sent.
    public static var maxConnectionThreads: Int {
        get { ConnectionThreadLimit.processWide.maximum }
        set { ConnectionThreadLimit.processWide.setMaximum(newValue) }
    }
}
