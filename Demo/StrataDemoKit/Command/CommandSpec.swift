/// What one command takes and how its help reads: the single source of its parsing, its
/// usage line and its `--help`.
struct CommandSpec: Sendable {
    /// The command's name, such as `get`.
    let name: String
    /// The usage lines after `strata-demo`, such as `get <url> [options]`.
    let usage: [String]
    /// What the command does, one paragraph.
    let overview: String
    /// The placeholder for the positional arguments, such as `<url>`, and how many it takes.
    let arguments: (placeholder: String, count: ClosedRange<Int>)
    /// The options, in help order.
    let options: [OptionSpec]
    /// More paragraphs for the help, such as the exit statuses.
    let notes: [String]
    /// Example command lines.
    let examples: [String]

    /// `Usage: strata-demo …`, one line per form.
    var usageText: String {
        usage.enumerated().map { ($0.offset == 0 ? "Usage: " : "       ") + "strata-demo " + $0.element }
            .joined(separator: "\n")
    }

    /// The whole `--help` text.
    var helpText: String {
        var sections = ["OVERVIEW: \(overview)", usageText]
        let width = max(24, (options.map(\.synopsis.count).max() ?? 0) + 4)
        let optionLines = (options + [OptionSpec("-h", "--help", help: "Shows this help.")]).map { option in
            "  " + option.synopsis.padding(toLength: width, withPad: " ", startingAt: 0) + option.help
        }
        sections.append("OPTIONS:\n" + optionLines.joined(separator: "\n"))
        sections += notes
        if !examples.isEmpty { sections.append("EXAMPLES:\n" + examples.map { "  " + $0 }.joined(separator: "\n")) }
        return sections.joined(separator: "\n\n")
    }

    /// A usage error for this command: the message, its usage and where its help is.
    func usageError(_ message: String) -> UsageError {
        UsageError(message, usage: usageText, helpCommand: "strata-demo \(name) --help")
    }
}
