import Foundation

/// A ``StrataLogger`` that writes one line per message to standard error, in a `key=value`
/// format that is easy to read and to grep:
/// ```
/// 2026-11-29T17:31:14.120Z notice retry.scheduled request=4f2a91c3 attempt=1 delay=0.412 reason=status 503
/// ```
public struct ConsoleLogger: StrataLogger {
    /// The least severe level written.
    public var minimumLevel: LogLevel
    private let write: @Sendable (String) -> Void
    private static let lock = LockedValue(())

    /// Creates a logger writing to standard error.
    public init(minimumLevel: LogLevel = .info) {
        self.init(minimumLevel: minimumLevel) { line in
            // One lock for the process: lines from concurrent requests never interleave.
            ConsoleLogger.lock.withLock { _ in FileHandle.standardError.write(Data(line.utf8)) }
        }
    }

    /// Creates a logger that hands each formatted line (ending in a newline) to `write`.
    package init(minimumLevel: LogLevel = .info, write: @escaping @Sendable (String) -> Void) {
        self.minimumLevel = minimumLevel
        self.write = write
    }

    /// Whether `level` is at least ``minimumLevel``.
    public func isEnabled(_ level: LogLevel) -> Bool { level >= minimumLevel }

    /// Writes `time level message key=value...`, keys sorted, values quoted when they contain spaces.
    public func record(_ level: LogLevel, _ message: String, metadata: LogMetadata) {
        var line = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
        line += " \(level) \(message)"
        for key in metadata.keys.sorted() {
            guard let value = metadata[key] else { continue }
            line += " \(key)=" + (value.contains(" ") || value.isEmpty ? value.debugDescription : value)
        }
        write(line + "\n")
    }
}
