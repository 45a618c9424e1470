/// `strata-demo --help`: every command's usage and one sentence each; help lines are sentences.
enum HelpText {
    /// Every command's usage lines.
    static let usage: String = {
        let forms = DemoCommand.specs.flatMap(\.usage)
        return forms.enumerated().map { ($0.offset == 0 ? "Usage: " : "       ") + "strata-demo " + $0.element }
            .joined(separator: "\n")
    }()

    /// The whole overview.
    static let overview = """
        OVERVIEW: Strata's guided tour, and a tool for HTTPS APIs with pinned certificates.

        \(usage)

        COMMANDS:
          tour (default)     Runs the recommended stack against a sandbox HTTPS API and narrates each layer.
          get <url>          Sends one request through the stack; pins, private CA, ETag store, retries.
          pin                Prints the pins of a server's verified chain or of certificate files.
          sandbox            Runs the sandbox HTTPS API in the foreground, for trying 'get' and 'pin'.
          help <command>     Shows a command's help, as 'strata-demo <command> --help' does.

          See 'strata-demo <command> --help' for a command's options.
        """

    /// A usage error that names no command, such as an unknown one.
    static func usageError(_ message: String) -> UsageError {
        UsageError(message, usage: usage, helpCommand: "strata-demo --help")
    }
}
