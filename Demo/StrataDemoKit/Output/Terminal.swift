#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the process writes to: whether each stream is a terminal, and whether the user asked
/// for no colour. Decides colour and progress lines; nothing else depends on it.
public struct Terminal: Sendable, Hashable {
    /// Standard output is a terminal.
    public var outputIsTerminal: Bool
    /// Standard error is a terminal.
    public var errorIsTerminal: Bool
    /// `NO_COLOR` is set to a non-empty value (https://no-color.org).
    public var noColor: Bool

    /// Creates a description of the streams.
    public init(outputIsTerminal: Bool, errorIsTerminal: Bool, noColor: Bool) {
        self.outputIsTerminal = outputIsTerminal
        self.errorIsTerminal = errorIsTerminal
        self.noColor = noColor
    }

    /// Neither stream is a terminal: no colour, no progress line (pipes, files, tests).
    public static let none = Terminal(outputIsTerminal: false, errorIsTerminal: false, noColor: true)

    /// The process's own streams and environment.
    public static func current(environment: [String: String]) -> Terminal {
        Terminal(
            outputIsTerminal: isatty(STDOUT_FILENO) == 1, errorIsTerminal: isatty(STDERR_FILENO) == 1,
            noColor: !(environment["NO_COLOR"] ?? "").isEmpty)
    }

    /// Whether standard output gets colour.
    var colorsOutput: Bool { outputIsTerminal && !noColor }
    /// Whether standard error gets colour.
    var colorsError: Bool { errorIsTerminal && !noColor }
}
