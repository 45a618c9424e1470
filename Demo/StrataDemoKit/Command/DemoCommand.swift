/// What the command line asked for, decided from the arguments alone (no I/O), so every usage
/// error is reported before anything starts.
enum DemoCommand {
    /// Run the guided tour.
    case tour(verbose: Bool)
    /// Send one request.
    case get(GetOptions)
    /// Print pins.
    case pin(PinCommand)
    /// Run the sandbox until interrupted.
    case sandbox(SandboxCommand)
    /// Print this help text.
    case help(String)

    /// The commands, in help order.
    static let specs = [TourCommand.spec, GetCommand.spec, PinCommand.spec, SandboxCommand.spec]

    /// Parses the arguments after the program name.
    ///
    /// No arguments, or options only, run the tour. `--help` (or `-h`) anywhere shows the help of
    /// the command it follows, as swift-argument-parser does.
    /// - Throws: ``UsageError`` for an unknown command or option, or a missing, extra or
    ///   malformed value.
    static func parse(_ arguments: [String], output: DemoOutput) throws(UsageError) -> DemoCommand {
        let first = arguments.first ?? "tour"
        if first == "help" { return .help(try helpTopic(Array(arguments.dropFirst()))) }
        let named = specs.first { $0.name == first }
        let asksForHelp = arguments.contains("--help") || arguments.contains("-h")
        guard let spec = named ?? (first.hasPrefix("-") ? TourCommand.spec : nil) else {
            if asksForHelp { return .help(HelpText.overview) }
            throw HelpText.usageError("Unknown command '\(first)'; the commands are tour, get, pin and sandbox.")
        }
        if asksForHelp { return .help(named == nil ? HelpText.overview : spec.helpText) }
        let parsed = try ParsedArguments(named == nil ? arguments : Array(arguments.dropFirst()), spec: spec)
        switch spec.name {
        case GetCommand.spec.name: return .get(try GetOptions(parsed))
        case PinCommand.spec.name: return .pin(try PinCommand(parsed, output: output))
        case SandboxCommand.spec.name: return .sandbox(try SandboxCommand(parsed, output: output))
        default: return .tour(verbose: parsed.has("--verbose"))
        }
    }

    /// `help` alone, or `help <command>`.
    private static func helpTopic(_ arguments: [String]) throws(UsageError) -> String {
        guard let name = arguments.first else { return HelpText.overview }
        guard arguments.count == 1, let spec = specs.first(where: { $0.name == name }) else {
            throw HelpText.usageError("'help' takes one of tour, get, pin and sandbox, not '\(arguments.joined(separator: " "))'.")
        }
        return spec.helpText
    }
}
