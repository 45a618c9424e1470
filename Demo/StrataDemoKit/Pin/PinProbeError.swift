import Strata
import StrataPinning

/// Why `strata-demo pin <host>` printed no chain, worded for the person at the terminal.
enum PinProbeError: Error, CustomStringConvertible {
    /// The `--ca` file could not be read or holds no certificate.
    case unreadableCA(InputFile.Failure)
    /// The host name did not resolve.
    case cannotResolve(target: PinTarget, reason: String)
    /// The host resolved but no TCP connection could be made.
    case cannotConnect(target: PinTarget, reason: String)
    /// Connecting or the handshake took longer than ``PinProbe/timeout``.
    case timedOut(target: PinTarget, reason: String)
    /// The server's certificate failed OpenSSL's checks; `hint` suggests what to try.
    case untrusted(ServerTrustError, hint: String?)
    /// The connection or the TLS handshake failed otherwise.
    case connectionFailed(target: PinTarget, reason: String)
    /// The target cannot be pinned as given.
    case configuration(target: PinTarget, reason: String)

    /// Classifies a failure of the probe's request.
    init(target: PinTarget, failure: any Error, usedCA: Bool) {
        guard let error = failure as? TransportError else {
            self = .connectionFailed(target: target, reason: "\(failure)")
            return
        }
        if let trust = error.serverTrustError {
            let privateCAHint =
                usedCA
                ? "Check that the --ca file holds the CA that issued this server's chain."
                : "If the server uses a private CA, pass its certificate with --ca <pem-file>."
            switch trust {
            case .untrustedIssuer, .selfSignedCertificate: self = .untrusted(trust, hint: privateCAHint)
            default: self = .untrusted(trust, hint: nil)
            }
            return
        }
        let reason = error.message.isEmpty ? error.kind.rawValue : error.message
        switch error.kind {
        case .cannotConnect where error.message.hasPrefix("cannot resolve"): self = .cannotResolve(target: target, reason: reason)
        case .cannotConnect: self = .cannotConnect(target: target, reason: reason)
        case .timedOut: self = .timedOut(target: target, reason: reason)
        default: self = .connectionFailed(target: target, reason: reason)
        }
    }

    var description: String {
        switch self {
        case .unreadableCA(let failure):
            failure.named("--ca").description
        case .cannotResolve(let target, let reason):
            "Cannot connect to \(target): the host name does not resolve (\(reason)). Check the name and your network or DNS."
        case .cannotConnect(let target, let reason):
            "Cannot connect to \(target) (\(reason)). Check the port and that the server is running and reachable."
        case .timedOut(let target, let reason):
            "\(target) did not answer in time (\(reason))."
        case .untrusted(let trust, let hint):
            trust.description + (hint.map { "\n" + $0 } ?? "")
        case .connectionFailed(let target, let reason):
            "The TLS connection to \(target) failed: \(reason)."
        case .configuration(let target, let reason):
            "Cannot pin \(target): \(reason)."
        }
    }
}
