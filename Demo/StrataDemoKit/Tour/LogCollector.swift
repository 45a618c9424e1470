import Strata

/// Collects the lines a `ConsoleLogger` formats, and echoes each one at once when asked
/// (`--verbose`), so the tour can quote its logs and a test can search them.
final class LogCollector: Sendable {
    private let lines = LockedValue<[String]>([])
    private let echo: (@Sendable (String) -> Void)?

    /// Creates a collector.
    ///
    /// - Parameter echo: Receives every line as it is logged; `nil` to only collect.
    init(echo: (@Sendable (String) -> Void)?) {
        self.echo = echo
    }

    /// A debug-level `ConsoleLogger` writing into this collector: the tour needs the debug-level
    /// `request.start` lines to show how `Authorization` is logged.
    var logger: ConsoleLogger {
        ConsoleLogger(minimumLevel: .debug) { [self] line in
            let trimmed = line.hasSuffix("\n") ? String(line.dropLast()) : line
            lines.withLock { $0.append(trimmed) }
            echo?(trimmed)
        }
    }

    /// Every line so far, without newlines.
    var all: [String] { lines.withLock { $0 } }
}
