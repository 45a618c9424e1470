import StrataPinning
import Strata

/// A trust evaluator that keeps the verified chain it is shown and then ends the connection.
///
/// `PinningTransport` runs evaluators on OpenSSL's *verified* chain (leaf first, ending at the
/// trust anchor) before any request byte, so this sees exactly what a pin must match. It throws
/// ``ChainRecorded`` once it has the chain: the probe needs no HTTP exchange, and a server that
/// does not speak HTTP still yields its chain.
final class ChainRecorder: ServerTrustEvaluator {
    /// Thrown after the chain was kept, so the transport closes the connection unused.
    struct ChainRecorded: Error, CustomStringConvertible {
        var description: String { "the chain was recorded; the connection was closed without sending a request" }
    }

    // evaluate(_:forHost:) runs on the connection's thread while the caller awaits on its task.
    private let recorded = LockedValue<[Certificate]?>(nil)

    /// The verified chain, once a handshake got that far.
    var chain: [Certificate]? { recorded.withLock { $0 } }

    func evaluate(_ chain: [Certificate], forHost host: String) throws {
        recorded.withLock { $0 = chain }
        throw ChainRecorded()
    }
}
