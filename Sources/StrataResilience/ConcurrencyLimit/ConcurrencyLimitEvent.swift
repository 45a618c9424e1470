import Foundation
import Strata

/// What a ``ConcurrencyLimitTransport`` did, reported through ``/Strata/TransportEvents`` to every
/// observer above it. A call that found a place at once reports nothing.
public enum ConcurrencyLimitEvent: TransportEvent, Hashable {
    /// The call waits for a place, at `position` in its group's queue (1 = next).
    case queued(group: String, position: Int, method: HTTPMethod, url: URL)
    /// The call got a place after waiting `waited`.
    case admitted(group: String, waited: Duration)
    /// The call was failed without being sent.
    case rejected(group: String, reason: ConcurrencyLimitError.Reason, method: HTTPMethod, url: URL)

    /// `concurrency.queued`, `concurrency.admitted` or `concurrency.rejected`.
    public var name: String {
        switch self {
        case .queued: "concurrency.queued"
        case .admitted: "concurrency.admitted"
        case .rejected: "concurrency.rejected"
        }
    }

    /// `info` for a wait, `warning` for a refusal.
    public var logLevel: LogLevel {
        switch self {
        case .queued, .admitted: .info
        case .rejected: .warning
        }
    }

    /// For example `GET https://api.example.com/todos waits for a place (position 3 for
    /// https://api.example.com:443)`.
    public func message(redactedBy redaction: Redaction) -> String {
        switch self {
        case .queued(let group, let position, let method, let url):
            "\(method) \(redaction.redact(url)) waits for a place (position \(position) for \(group))"
        case .admitted(let group, let waited):
            "a place for \(group) came free after \(waited.readable)"
        case .rejected(let group, .queueFull(let maxInFlight, let maxQueued), let method, let url):
            "\(method) \(redaction.redact(url)) not sent: \(maxInFlight) calls to \(group) in flight and \(maxQueued) waiting"
        case .rejected(let group, .queueTimedOut(let waited), let method, let url):
            "\(method) \(redaction.redact(url)) not sent: no place for \(group) within \(waited.readable)"
        }
    }

    /// `group`, and `position` or `waited_s`.
    public func logMetadata(redactedBy redaction: Redaction) -> LogMetadata {
        switch self {
        case .queued(let group, let position, _, _): ["group": group, "position": String(position)]
        case .admitted(let group, let waited): ["group": group, "waited_s": Double.fixed(waited.inSeconds, places: 3)]
        case .rejected(let group, _, _, _): ["group": group]
        }
    }
}
