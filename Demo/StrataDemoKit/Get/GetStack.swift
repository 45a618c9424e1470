#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataPinning

/// The stack `get` sends through, the README's recommended order without the token refresh (a
/// `--token` given on the command line has nothing to refresh with):
///
/// ```
/// RetryTransport → ETagTransport (with --etag-dir) → PinningTransport → URLSessionTransport
/// ```
/// The URL's host goes through `PinningTransport`'s own TLS when it is pinned or a private CA
/// is trusted; every other host goes to `URLSessionTransport`. Events reach ``EventPrinter``
/// through the layers' one event channel.
enum GetStack {
    /// Builds the stack for `options`.
    ///
    /// - Parameters:
    ///   - options: The command line.
    ///   - trustRoots: The CA certificates of `--ca`, or `.system`.
    ///   - store: The `--etag-dir` store, if any.
    /// - Throws: ``GetFailure/pinning(_:)`` when the pins cannot apply to the URL's host.
    static func make(
        _ options: GetOptions, trustRoots: TrustRoots,
        store: (any ETagStoreProtocol)?
    ) throws(GetFailure) -> any Transport {
        var configuration = PinningTransport.Configuration()
        if let timeout = options.timeout {
            configuration.connectTimeout = min(configuration.connectTimeout, timeout)
            configuration.handshakeTimeout = min(configuration.handshakeTimeout, timeout)
            configuration.requestTimeout = timeout
        }
        var pinned: [String: any ServerTrustEvaluator] = [:]
        if options.verifiesInBand, let host = options.url.host {
            do {
                pinned[host] =
                    options.pins.isEmpty
                    ? VerifiedChainEvaluator() : try PublicKeyPinningEvaluator(pins: options.pins)
            } catch {
                throw .pinning(error)
            }
        }
        let terminal: PinningTransport
        do {
            terminal = try PinningTransport.validated(
                pinnedDomains: pinned, trustRoots: trustRoots,
                configuration: configuration)
        } catch {
            throw .pinning(error)
        }
        let cached: any Transport = store.map { ETagTransport(inner: terminal, store: $0) } ?? terminal
        return RetryTransport(inner: cached, policy: RetryPolicy(maxRetries: options.retries))
    }
}
