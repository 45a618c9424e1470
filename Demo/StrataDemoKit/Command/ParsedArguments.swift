/// A command line split into options and positional arguments by a ``CommandSpec``.
struct ParsedArguments: Sendable {
    /// The values of each option given, keyed by its long name; a flag has one empty value per use.
    private(set) var options: [String: [String]] = [:]
    /// The positional arguments, in order.
    private(set) var positionals: [String] = []

    /// Splits `arguments` (those after the command's name).
    ///
    /// Accepts `--name value`, `--name=value`, `-n value` and `-nvalue`; `--` ends the options.
    /// - Throws: ``UsageError`` for an unknown option, a missing value, a repeated single-use
    ///   option, or too few or too many positional arguments.
    init(_ arguments: [String], spec: CommandSpec) throws(UsageError) {
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard !onlyPositionals, argument.count > 1, argument.hasPrefix("-") else {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            let (option, attached) = try Self.option(for: argument, in: spec)
            var value = ""
            if option.value != nil {
                if let attached {
                    value = attached
                } else {
                    // A following option is not a value: `--ca --json` forgot the file.
                    guard index < arguments.count, arguments[index] == "-" || !arguments[index].hasPrefix("-") else {
                        throw spec.usageError("Missing value for '\(option.longSynopsis)'.")
                    }
                    value = arguments[index]
                    index += 1
                }
            } else if attached != nil {
                throw spec.usageError("The flag '\(option.key)' takes no value.")
            }
            guard option.repeatable || options[option.key] == nil || option.value == nil else {
                throw spec.usageError("The option '\(option.key)' may be given only once.")
            }
            options[option.key, default: []].append(value)
        }
        guard spec.arguments.count.contains(positionals.count) else {
            if positionals.count < spec.arguments.count.lowerBound {
                throw spec.usageError("Missing expected argument '\(spec.arguments.placeholder)'.")
            }
            throw spec.usageError("Unexpected argument '\(positionals[spec.arguments.count.upperBound])'.")
        }
    }

    /// Whether the flag (or option) `key` was given.
    func has(_ key: String) -> Bool { options[key] != nil }

    /// The value of the single-use option `key`, if given.
    func value(_ key: String) -> String? { options[key]?.last }

    /// Every value of the repeatable option `key`, in order.
    func values(_ key: String) -> [String] { options[key] ?? [] }

    private static func option(for argument: String, in spec: CommandSpec) throws(UsageError) -> (OptionSpec, String?) {
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            let name = String(argument[..<equals])
            guard let option = spec.options.first(where: { $0.names.contains(name) }) else {
                throw spec.usageError("Unknown option '\(name)'.")
            }
            return (option, String(argument[argument.index(after: equals)...]))
        }
        if let option = spec.options.first(where: { $0.names.contains(argument) }) { return (option, nil) }
        // `-XPOST`, as curl users write it.
        let short = String(argument.prefix(2))
        if !argument.hasPrefix("--"), let option = spec.options.first(where: { $0.names.contains(short) && $0.value != nil }) {
            return (option, String(argument.dropFirst(2)))
        }
        throw spec.usageError("Unknown option '\(argument)'.")
    }
}
