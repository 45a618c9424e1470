import Foundation
import Strata

/// What a ``CircuitBreakerTransport`` did, reported through ``/Strata/TransportEvents`` to every observer
/// above it.
///
/// A change of state is reported in the task of the call that caused it: the call whose failure
/// opened the circuit, the first call after the break (half-open), the probe that closed it.
public enum CircuitBreakerEvent: TransportEvent, Hashable {
    /// The circuit of `group` opened: `failures` of the last `calls` failed; calls fail at once
    /// for `breakDuration`.
    case opened(group: String, calls: Int, failures: Int, breakDuration: Duration)
    /// The break passed: probes are let through.
    case halfOpened(group: String)
    /// A probe failed: the circuit is open again for `breakDuration`.
    case reopened(group: String, breakDuration: Duration)
    /// Every probe succeeded: calls go through again.
    case closed(group: String)
    /// A call was failed at once, without being sent.
    case rejected(group: String, state: CircuitState, method: HTTPMethod, url: URL)

    /// `circuit.opened`, `circuit.half_opened`, `circuit.reopened`, `circuit.closed` or
    /// `circuit.rejected`.
    public var name: String {
        switch self {
        case .opened: "circuit.opened"
        case .halfOpened: "circuit.half_opened"
        case .reopened: "circuit.reopened"
        case .closed: "circuit.closed"
        case .rejected: "circuit.rejected"
        }
    }

    /// `warning` when the circuit opens, `notice` for the other changes, `debug` for each
    /// rejected call (one per call while open: the `opened` line already said why).
    public var logLevel: LogLevel {
        switch self {
        case .opened, .reopened: .warning
        case .halfOpened, .closed: .notice
        case .rejected: .debug
        }
    }

    /// For example `circuit for https://api.example.com:443 opened: 60 of 100 calls failed;
    /// calls fail at once for 5 s`.
    public func message(redactedBy redaction: Redaction) -> String {
        switch self {
        case .opened(let group, let calls, let failures, let breakDuration):
            "circuit for \(group) opened: \(failures) of \(calls) calls failed; calls fail at once for \(breakDuration.readable)"
        case .halfOpened(let group):
            "circuit for \(group) half-open: letting probes through"
        case .reopened(let group, let breakDuration):
            "circuit for \(group) opened again: a probe failed; calls fail at once for \(breakDuration.readable)"
        case .closed(let group):
            "circuit for \(group) closed: the probes succeeded"
        case .rejected(let group, let state, let method, let url):
            "\(method) \(redaction.redact(url)) not sent: circuit for \(group) is \(state)"
        }
    }

    /// `group`, and `calls`/`failures`/`break_s` when the circuit opens.
    public func logMetadata(redactedBy redaction: Redaction) -> LogMetadata {
        switch self {
        case .opened(let group, let calls, let failures, let breakDuration):
            [
                "group": group, "calls": String(calls), "failures": String(failures),
                "break_s": Double.fixed(breakDuration.inSeconds, places: 3),
            ]
        case .reopened(let group, let breakDuration):
            ["group": group, "break_s": Double.fixed(breakDuration.inSeconds, places: 3)]
        case .halfOpened(let group), .closed(let group), .rejected(let group, _, _, _):
            ["group": group]
        }
    }
}
