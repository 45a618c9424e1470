/// The severity of a log message, ordered from most to least verbose. The levels are those of
/// swift-log, so bridging is a one-to-one mapping.
public enum LogLevel: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// Every detail, such as connection reuse.
    case trace
    /// Details useful while debugging: request starts, cache and pin checks.
    case debug
    /// Normal operation: responses.
    case info
    /// Notable but expected events: retries, token refreshes.
    case notice
    /// Something that may need attention.
    case warning
    /// A failed request or a failed security check.
    case error
    /// The program cannot continue; Strata never logs at this level.
    case critical

    /// Orders levels by severity.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The level's name, such as `notice`.
    public var description: String {
        switch self {
        case .trace: "trace"
        case .debug: "debug"
        case .info: "info"
        case .notice: "notice"
        case .warning: "warning"
        case .error: "error"
        case .critical: "critical"
        }
    }
}
