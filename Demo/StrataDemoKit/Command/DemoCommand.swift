/// What the command line asked for, parsed from the arguments alone (no I/O), so every usage
/// error is decided before anything starts.
enum DemoCommand: Equatable, Sendable {
    /// Start the sandbox and run the recommended stack against it.
    case tour(verbose: Bool)
    /// Print the verified chain's pins of `target`, trusting `caFile`'s certificates if given.
    case pin(PinTarget, caFile: String?)
    /// Print the help text.
    case help

    /// Parses the arguments after the program name.
    ///
    /// `--help` (or `-h`) anywhere wins, as in swift-argument-parser.
    /// - Throws: ``UsageError`` for an unknown command or option, a missing or extra value.
    static func parse(_ arguments: [String]) throws(UsageError) -> DemoCommand {
        if arguments.contains("--help") || arguments.contains("-h") { return .help }
        guard let first = arguments.first else { return .tour(verbose: false) }
        if first == "help" { return .help }
        if first == "pin" { return try parsePin(Array(arguments.dropFirst())) }
        let named = first == "tour"
        var verbose = false
        for argument in named ? Array(arguments.dropFirst()) : arguments {
            guard argument == "--verbose" || argument == "-v" else { throw unexpected(argument, afterCommand: named) }
            verbose = true
        }
        return .tour(verbose: verbose)
    }

    private static func parsePin(_ arguments: [String]) throws(UsageError) -> DemoCommand {
        var target: PinTarget?
        var caFile: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--ca" {
                guard index < arguments.count, !arguments[index].hasPrefix("-") else {
                    throw UsageError("Missing value for '--ca <pem-file>'.")
                }
                caFile = arguments[index]
                index += 1
            } else if argument.hasPrefix("--ca=") {
                caFile = String(argument.dropFirst("--ca=".count))
            } else if argument.hasPrefix("-") {
                throw UsageError("Unknown option '\(argument)'.")
            } else if target == nil {
                target = try PinTarget(parsing: argument)
            } else {
                throw UsageError("Unexpected argument '\(argument)'.")
            }
        }
        guard let target else { throw UsageError("Missing expected argument '<host>[:port]'.") }
        return .pin(target, caFile: caFile)
    }

    private static func unexpected(_ argument: String, afterCommand: Bool) -> UsageError {
        if argument.hasPrefix("-") { return UsageError("Unknown option '\(argument)'.") }
        if afterCommand { return UsageError("Unexpected argument '\(argument)'.") }
        return UsageError("Unknown command '\(argument)'; the commands are 'tour' and 'pin'.")
    }
}
