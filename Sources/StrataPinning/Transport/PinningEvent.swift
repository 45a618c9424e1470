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
    /// A new connection's TCP connection reached `address` of `host` (the proxy's host when
    /// through a proxy) after `attempts` addresses were tried (IPv6 and IPv4 raced, RFC 8305).
    case addressConnected(host: String, address: String, attempts: Int)
    /// The proxy `proxy` (its URL without credentials) opened a `CONNECT` tunnel to `host:port`;
    /// TLS with the pinned host runs through it.
    case tunnelOpened(proxy: String, host: String, port: Int)
    /// A ``ReportOnlyEvaluator`` refused the verified chain of a new connection, and the request
    /// proceeds: `servedPins` are the chain's pins (leaf first, ready to copy), `failure` what
    /// the evaluator said.
    case pinMismatchReported(host: String, servedPins: [String], failure: String)
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
    /// The request was written completely over HTTP/1.1: `bytes` of head and body.
    case requestWritten(host: String, method: HTTPMethod, bytes: Int)
    /// An interim `1xx` response (such as `100 Continue` or `103 Early Hints`) was read and skipped.
    case interimResponseSkipped(host: String, statusCode: Int)
    /// The final response was read over HTTP/1.1: its status, body size, and whether the
    /// connection stays open for another request.
    case responseRead(host: String, statusCode: Int, bodyBytes: Int, keepAlive: Bool)
    /// The HTTP/1.1 exchange failed and the connection was closed; the request throws a
    /// `TransportError` of this kind.
    case exchangeFailed(host: String, kind: TransportError.Kind, message: String)
    /// The request went out over HTTP/2, as stream `streamID` of the host's connection, with
    /// `bodyBytes` of body (sent as flow control allows).
    case streamOpened(host: String, streamID: Int32, method: HTTPMethod, bodyBytes: Int)
    /// The final response of HTTP/2 stream `streamID` was read.
    case streamResponseRead(host: String, streamID: Int32, statusCode: Int, bodyBytes: Int)
    /// HTTP/2 stream `streamID` failed (the server reset it, a limit or the deadline was
    /// reached, the connection ended); the request throws a `TransportError` of this kind.
    case streamFailed(host: String, streamID: Int32, kind: TransportError.Kind, message: String)
    /// While the request was in flight, the server's HTTP/2 SETTINGS arrived: it accepts
    /// `maxConcurrentStreams` streams at once.
    case http2SettingsReceived(host: String, maxConcurrentStreams: Int)
    /// While the request was in flight, the server sent GOAWAY: streams above `lastStreamID`
    /// were not processed (and are sent again on a new connection).
    case goAwayReceived(host: String, lastStreamID: Int32, code: HTTP2ErrorCode)
    /// While the request was in flight, its quiet HTTP/2 connection was checked with a PING.
    case pingSent(host: String)

    /// `pinning.` plus what happened, such as `pinning.trust-evaluated`.
    public var name: String {
        switch self {
        case .sentToInner: "pinning.sent-to-inner"
        case .connectionOpened: "pinning.connection-opened"
        case .addressConnected: "pinning.address-connected"
        case .tunnelOpened: "pinning.proxy-tunnel-opened"
        case .pinMismatchReported: "pinning.report-only-mismatch"
        case .connectionReused: "pinning.connection-reused"
        case .connectionDiscarded: "pinning.connection-discarded"
        case .trustEvaluated: "pinning.trust-evaluated"
        case .retryingOnFreshConnection: "pinning.retrying-on-fresh-connection"
        case .redirected: "pinning.redirected"
        case .requestWritten: "pinning.request-written"
        case .interimResponseSkipped: "pinning.interim-response-skipped"
        case .responseRead: "pinning.response-read"
        case .exchangeFailed: "pinning.exchange-failed"
        case .streamOpened: "pinning.http2.stream-opened"
        case .streamResponseRead: "pinning.http2.response-read"
        case .streamFailed: "pinning.http2.stream-failed"
        case .http2SettingsReceived: "pinning.http2.settings-received"
        case .goAwayReceived: "pinning.http2.goaway-received"
        case .pingSent: "pinning.http2.ping-sent"
        }
    }

    /// `error` for a refused chain; `warning` for a report-only mismatch; `trace` for the bytes
    /// of an exchange; `debug` otherwise.
    public var logLevel: LogLevel {
        switch self {
        case .trustEvaluated(_, _, let failure): failure == nil ? .debug : .error
        case .pinMismatchReported: .warning
        case .requestWritten, .responseRead, .sentToInner, .streamOpened, .streamResponseRead: .trace
        case .connectionOpened, .addressConnected, .tunnelOpened, .connectionReused, .connectionDiscarded, .retryingOnFreshConnection,
            .redirected,
            .interimResponseSkipped, .exchangeFailed, .streamFailed, .http2SettingsReceived, .goAwayReceived, .pingSent:
            .debug
        }
    }

    /// For example `pin check for api.example.com matched sha256/…`.
    public func message(redactedBy redaction: Redaction) -> String {
        switch self {
        case .sentToInner(let url):
            "\(redaction.redact(url)) is not pinned; sent to the inner transport"
        case .connectionOpened(let host, let port, let version, let duration):
            "opened a \(version) connection to \(host):\(port) in \(RequestEvent.milliseconds(duration)) ms"
        case .addressConnected(let host, let address, let attempts):
            "connected to \(host) at \(address)" + (attempts > 1 ? " (attempt \(attempts) of its addresses)" : "")
        case .tunnelOpened(let proxy, let host, let port):
            "the proxy \(redaction.scrub(proxy)) opened a tunnel to \(host):\(port)"
        case .pinMismatchReported(let host, let served, let failure):
            "report-only pin check for \(host) failed, request allowed: \(failure); the server's chain has "
                + served.joined(separator: ", ")
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
        case .streamOpened(let host, let streamID, let method, let bytes):
            "sent \(method) to \(host) on HTTP/2 stream \(streamID) with \(bytes) body bytes"
        case .streamResponseRead(let host, let streamID, let status, let bytes):
            "read \(status) from \(host) on HTTP/2 stream \(streamID): \(bytes) body bytes"
        case .streamFailed(let host, let streamID, let kind, let message):
            "HTTP/2 stream \(streamID) to \(host) failed (\(kind.rawValue)): \(redaction.scrub(message))"
        case .http2SettingsReceived(let host, let streams):
            "\(host) accepts \(streams) concurrent HTTP/2 streams"
        case .goAwayReceived(let host, let last, let code):
            "\(host) sent GOAWAY (\(code)): streams above \(last) go to a new connection"
        case .pingSent(let host):
            "checked the quiet HTTP/2 connection to \(host) with a PING"
        }
    }

    /// `host` (and `port`) of the event, and `pin` or `error` of a trust check.
    public func logMetadata(redactedBy redaction: Redaction) -> LogMetadata {
        switch self {
        case .trustEvaluated(let host, let pin, let failure):
            var metadata: LogMetadata = ["host": host, "result": failure == nil ? "matched" : "failed"]
            if let pin { metadata["pin"] = pin }
            return metadata
        case .pinMismatchReported(let host, let served, _):
            return ["host": host, "result": "report-only-mismatch", "served-pins": served.joined(separator: " ")]
        case .addressConnected(let host, let address, let attempts):
            return ["host": host, "address": address, "attempts": String(attempts)]
        case .tunnelOpened(let proxy, let host, let port):
            return ["proxy": redaction.scrub(proxy), "host": host, "port": String(port)]
        case .connectionOpened(let host, let port, _, _), .connectionReused(let host, let port),
            .connectionDiscarded(let host, let port, _), .retryingOnFreshConnection(let host, let port, _):
            return ["host": host, "port": String(port)]
        case .requestWritten(let host, _, _), .interimResponseSkipped(let host, _), .responseRead(let host, _, _, _),
            .exchangeFailed(let host, _, _), .http2SettingsReceived(let host, _), .goAwayReceived(let host, _, _),
            .pingSent(let host):
            return ["host": host]
        case .streamOpened(let host, let streamID, _, _), .streamResponseRead(let host, let streamID, _, _),
            .streamFailed(let host, let streamID, _, _):
            return ["host": host, "stream": String(streamID)]
        case .sentToInner, .redirected:
            return [:]
        }
    }
}
