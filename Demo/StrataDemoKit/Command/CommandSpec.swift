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

    /// The column help text is wrapped at.
    static let helpWidth = 100

    /// The whole `--help` text.
    var helpText: String {
        var sections = [Self.wrap("OVERVIEW: \(overview)", indent: 0), usageText]
        let width = max(24, (options.map(\.synopsis.count).max() ?? 0) + 4)
        let optionLines = (options + [OptionSpec("-h", "--help", help: "Shows this help.")]).map { option in
            let line = "  " + option.synopsis.padding(toLength: width, withPad: " ", startingAt: 0) + option.help
            return Self.wrap(line, indent: width + 2)
        }
        sections.append("OPTIONS:\n" + optionLines.joined(separator: "\n"))
        sections += notes
        if !examples.isEmpty { sections.append("EXAMPLES:\n" + examples.map { "  " + $0 }.joined(separator: "\n")) }
        return sections.joined(separator: "\n\n")
    }

    /// `text` broken at spaces into lines of at most ``helpWidth`` columns, continuation lines
    /// indented by `indent`.
    static func wrap(_ text: String, indent: Int) -> String {
        var lines: [String] = []
        let margin = text.prefix { $0 == " " }
        var line = String(margin)
        for (index, word) in text.dropFirst(margin.count).split(separator: " ", omittingEmptySubsequences: false).enumerated() {
            if line.count + 1 + word.count > helpWidth, line.count > indent {
                lines.append(line)
                line = String(repeating: " ", count: indent) + word
            } else {
                line += (index == 0 ? "" : " ") + word
            }
        }
        return (lines + [line]).joined(separator: "\n")
    }

    /// A usage error for this command: the message, its usage and where its help is.
    func usageError(_ message: String) -> UsageError {
        UsageError(message, usage: usageText, helpCommand: "strata-demo \(name) --help")
    }
}
