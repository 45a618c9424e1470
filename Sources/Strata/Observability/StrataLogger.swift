/// A destination for Strata's structured log messages.
///
/// Implement it to send Strata's logs wherever your application's go. ``LoggingTransport``
/// asks ``isEnabled(_:)`` before it formats anything, so a disabled level costs one comparison;
/// ``log(_:_:metadata:)`` does the same for messages you log yourself.
/// Bridging to swift-log takes a few lines:
/// ```swift
/// import Logging
/// import Strata
///
/// struct SwiftLogBridge: StrataLogger {
///     let logger: Logger
///     func isEnabled(_ level: LogLevel) -> Bool { logger.logLevel <= Logger.Level(level) }
///     func record(_ level: LogLevel, _ message: String, metadata: LogMetadata) {
///         logger.log(level: Logger.Level(level), "\(message)", metadata: metadata.mapValues { .string($0) })
///     }
/// }
///
/// extension Logger.Level {
///     init(_ level: LogLevel) { self = Logger.Level(rawValue: level.description) ?? .info }
/// }
/// ```
public protocol StrataLogger: Sendable {
    /// Whether messages at `level` are wanted. Called before any formatting work.
    func isEnabled(_ level: LogLevel) -> Bool
    /// Records one message. Strata calls it only after ``isEnabled(_:)`` returned `true` for
    /// `level`; call ``log(_:_:metadata:)`` yourself, which checks first.
    func record(_ level: LogLevel, _ message: String, metadata: LogMetadata)
}

extension StrataLogger {
    /// Records a message built only if `level` is enabled: neither closure runs otherwise.
    public func log(
        _ level: LogLevel, _ message: @autoclosure () -> String,
        metadata: @autoclosure () -> LogMetadata = [:]
    ) {
        guard isEnabled(level) else { return }
        record(level, message(), metadata: metadata())
    }
}
