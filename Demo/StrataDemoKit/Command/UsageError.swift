/// A command line the demo cannot run; reported as swift-argument-parser does, with exit 64
/// (`EX_USAGE` from sysexits.h).
struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// One sentence saying what is wrong.
    let message: String
    /// The usage line(s) of the command concerned.
    let usage: String
    /// The command that shows its help, such as `strata-demo get --help`.
    let helpCommand: String

    init(_ message: String, usage: String, helpCommand: String) {
        self.message = message
        self.usage = usage
        self.helpCommand = helpCommand
    }

    /// The usage and help pointer after the `Error: ` line.
    var guidance: String { "\(usage)\n  See '\(helpCommand)' for more information." }

    /// `Error: …`, the usage line, and where to read more.
    var description: String { "Error: \(message)\n\(guidance)" }
}
