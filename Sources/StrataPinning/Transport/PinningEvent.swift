import Foundation
import Strata

/// What ``PinningTransport`` did for one request, reported through `TransportEvents` to every
/// observer above it (`LoggingTransport`, `ObservingTransport`).
///
/// Connection work runs on the connection's own thread; its events are collected there and
/// reported once, in the calling task, when the exchange ends (only when something observes).
/// Connections closed outside any request (idle expiry, the pool shutting down) report nothing.
public enum PinningEvent: TransportEvent, Hashable {
    /// A request for a host that no `pinnedDomains` pattern matches went to the inner transport.
    case sentToInner(url: URL?)
    /// A new TLS connection completed its handshake (`tlsVersion` such as `TLSv1.3`) in `duration`,
    /// connect included. Its trust check follows at once, before any request byte.
    case connectionOpened(host: String, port: Int, tlsVersion: String, duration: Duration)
    /// An idle keep-alive connection passed its liveness check and carries the next request.
    case connectionReused(host: String, port: Int)
    /// An idle connection was closed instead of reused: the server closed it or sent something
    /// unasked, or it was idle past the pool's expiry.
    case connectionDiscarded(host: String, port: Int, reason: String)
    /// The verified chain was evaluated: `matchedPin` is the pin that matched (when the evaluator
    /// can tell, as the pin evaluators can), `failure` the reason it was refused.
    case trustEvaluated(host: String, matchedPin: String?, failure: String?)
    /// An idempotent request failed on a reused connection before any response byte arrived
    /// (the server had closed it), and is sent once more on a fresh connection (RFC 9112 §9.3.1).
    case retryingOnFreshConnection(host: String, port: Int, reason: String)
    /// A redirect from a pinned host is being followed.
    case redirected(from: URL, to: URL, statusCode: Int)
    /// The request was written completely: `bytes` of head and body.
    case requestWritten(host: String, method: HTTPMethod, bytes: Int)
    /// An interim `1xx` response (such as `100 Continue` or `103 Early Hints`) was read and skipped.
    case interimResponseSkipped(host: String, statusCode: Int)
    /// The final response was read: its status, body size, and whether the connection stays
    /// open for another request.
    case responseRead(host: String, statusCode: Int, bodyBytes: Int, keepAlive: Bool)
    /// The exchange failed and the connection was closed; the request throws a `TransportError`
    /// of this kind.
    case exchangeFailed(host: String, kind: TransportError.Kind, message: String)

    /// `pinning.` plus what happened, such as `pinning.trust-evaluated`.
    public var name: String {
        switch self {
        case .sentToInner: "pinning.sent-to-inner"
        case .connectionOpened: "pinning.connection-opened"
        case .connectionReused: "pinning.connection-reused"
        case .connectionDiscarded: "pinning.connection-discarded"
        case .trustEvaluated: "pinning.trust-evaluated"
        case .retryingOnFreshConnection: "pinning.retrying-on-fresh-connection"
        case .redirected: "pinning.redirected"
        case .requestWritten: "pinning.request-written"
        case .interimResponseSkipped: "pinning.interim-response-skipped"
        case .responseRead: "pinning.response-read"
        case .exchangeFailed: "pinning.exchange-failed"
        }
    }

    /// `error` for a refused chain; `trace` for the bytes of an exchange; `debug` otherwise.
    public var logLevel: LogLevel {
        switch self {
        case .trustEvaluated(_, _, let failure): failure == nil ? .debug : .error
        case .requestWritten, .responseRead, .sentToInner: .trace
        case .connectionOpened, .connectionReused, .connectionDiscarded, .retryingOnFreshConnection, .redirected,
             .interimResponseSkipped, .exchangeFailed: .debug
        }
    }

    /// For example `pin check for api.example.com matched sha256/…`.
    public func message(redactedBy redaction: Redaction) -> String {
        switch self {
        case .sentToInner(let url):
            "\(redaction.redact(url)) is not pinned; sent to the inner transport"
        case .connectionOpened(let host, let port, let version, let duration):
            "opened a \(version) connection to \(host):\(port) in \(RequestEvent.milliseconds(duration)) ms"
        case .connectionReused(let host, let port):
            "reused the idle connection to \(host):\(port)"
        case .connectionDiscarded(let host, let port, let reason):
            "closed the idle connection to \(host):\(port): \(reason)"
        case .trustEvaluated(let host, let pin, let failure):
            if let failure {
                "pin check for \(host) failed: \(failure)"
            } else {
                "pin check for \(host) passed" + (pin.map { ", matched \($0)" } ?? "")
            }
        case .retryingOnFreshConnection(let host, let port, let reason):
            "a reused connection to \(host):\(port) failed before the response (\(reason)); sending once more on a fresh one"
        case .redirected(let from, let to, let status):
            "\(status) redirect from \(redaction.redact(from)) to \(redaction.redact(to))"
        case .requestWritten(let host, let method, let bytes):
            "wrote \(method) to \(host): \(bytes) bytes"
        case .interimResponseSkipped(let host, let status):
            "skipped an interim \(status) response from \(host)"
        case .responseRead(let host, let status, let bytes, let keepAlive):
            "read \(status) from \(host): \(bytes) body bytes; connection \(keepAlive ? "kept open" : "closed")"
        case .exchangeFailed(let host, let kind, let message):
            "the exchange with \(host) failed (\(kind.rawValue)): \(redaction.scrub(message))"
        }
    }

    /// `host` (and `port`) of the event, and `pin` or `error` of a trust check.
    public func logMetadata(redactedBy redaction: Redaction) -> LogMetadata {
        switch self {
        case .trustEvaluated(let host, let pin, let failure):
            var metadata: LogMetadata = ["host": host, "result": failure == nil ? "matched" : "failed"]
            if let pin { metadata["pin"] = pin }
            return metadata
        case .connectionOpened(let host, let port, _, _), .connectionReused(let host, let port),
             .connectionDiscarded(let host, let port, _), .retryingOnFreshConnection(let host, let port, _):
            return ["host": host, "port": String(port)]
        case .requestWritten(let host, _, _), .interimResponseSkipped(let host, _), .responseRead(let host, _, _, _),
             .exchangeFailed(let host, _, _):
            return ["host": host]
        case .sentToInner, .redirected:
            return [:]
        }
    }
}
