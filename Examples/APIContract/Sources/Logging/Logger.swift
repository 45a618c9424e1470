// A stand-in for the part of swift-log (github.com/apple/swift-log) the README's bridge uses,
// with the same names and shapes, so that block compiles without fetching swift-log.

/// swift-log's logger, reduced to what the README's `SwiftLogBridge` calls.
public struct Logger: Sendable {
    /// swift-log's levels.
    public enum Level: String, Sendable, Comparable {
        case trace, debug, info, notice, warning, error, critical

        public static func < (lhs: Level, rhs: Level) -> Bool {
            let order: [Level] = [.trace, .debug, .info, .notice, .warning, .error, .critical]
            return order.firstIndex(of: lhs)! < order.firstIndex(of: rhs)!
        }
    }

    /// swift-log's metadata values.
    public enum MetadataValue: Sendable {
        case string(String)
    }

    /// swift-log's message type.
    public struct Message: ExpressibleByStringInterpolation, Sendable {
        public init(stringLiteral value: String) {}
    }

    public var logLevel: Level = .info

    public init(label: String) {}

    public func log(level: Level, _ message: @autoclosure () -> Message, metadata: @autoclosure () -> [String: MetadataValue]? = nil) {}
}
