/// A command line the demo cannot run; reported as swift-argument-parser does, with exit 64
/// (`EX_USAGE` from sysexits.h).
struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The exit status for usage errors: `EX_USAGE`.
    static let exitCode: Int32 = 64

    /// One sentence saying what is wrong.
    let message: String

    init(_ message: String) { self.message = message }

    /// `Error: …`, the usage line, and where to read more.
    var description: String {
        "Error: \(message)\n\(HelpText.usage)\n  See 'strata-demo --help' for more information."
    }
}
