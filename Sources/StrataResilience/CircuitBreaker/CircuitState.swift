/// Where one circuit of a ``CircuitBreakerTransport`` is, for health checks and dashboards.
public enum CircuitState: Sendable, Hashable, CustomStringConvertible {
    /// Calls go through and are counted.
    case closed
    /// Calls fail at once with ``CircuitOpenError``; probes are let through after `reopensIn`.
    case open(reopensIn: Duration)
    /// Probes are being let through; other calls fail at once until they succeed.
    case halfOpen

    /// `closed`, `open (probes in 4.2 s)` or `half-open`.
    public var description: String {
        switch self {
        case .closed: "closed"
        case .open(let reopensIn): "open (probes in \(reopensIn.readable))"
        case .halfOpen: "half-open"
        }
    }
}
