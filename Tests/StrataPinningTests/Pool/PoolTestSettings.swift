import Strata
@testable import StrataPinning

extension ConnectionSettings {
    /// Settings for a pool that a test only asks for slots and routes: nothing ever connects.
    static func neverConnecting(threads: ConnectionThreadLimit = .processWide) throws -> ConnectionSettings {
        var settings = ConnectionSettings(
            context: try TLSClientContext(roots: .pinnedKeysOnly),
            timeouts: .init(connect: .seconds(1), handshake: .seconds(1), idle: .seconds(1)),
            limits: .default, clock: ErasedClock(ContinuousClock()))
        settings.threads = threads
        return settings
    }
}
