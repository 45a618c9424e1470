import Foundation

/// Where the demo writes: standard output for results (a body, pins, the narration), standard
/// error for diagnostics (errors, warnings, `-v` heads, events, progress). Tests pass closures
/// that capture both.
public struct DemoOutput: Sendable {
    /// Writes bytes to standard output as they are, such as a response body.
    public var write: @Sendable (Data) -> Void
    /// Writes bytes to standard error as they are.
    public var writeError: @Sendable (Data) -> Void
    /// What the streams are, for colour and progress lines.
    public var terminal: Terminal

    /// Creates an output from two byte writers.
    ///
    /// - Parameters:
    ///   - terminal: What the streams are; ``Terminal/none`` for no colour and no progress line.
    ///   - write: Receives standard output's bytes.
    ///   - writeError: Receives standard error's bytes.
    public init(
        terminal: Terminal, write: @escaping @Sendable (Data) -> Void,
        writeError: @escaping @Sendable (Data) -> Void
    ) {
        self.terminal = terminal
        self.write = write
        self.writeError = writeError
    }

    /// The process's standard output and standard error.
    public static func console(environment: [String: String] = ProcessInfo.processInfo.environment) -> DemoOutput {
        DemoOutput(
            terminal: .current(environment: environment),
            write: { FileHandle.standardOutput.write($0) },
            writeError: { FileHandle.standardError.write($0) })
    }

    /// Writes one line (a newline is added) to standard output.
    func line(_ text: String) { write(Data((text + "\n").utf8)) }

    /// Writes one line (a newline is added) to standard error.
    func errorLine(_ text: String) { writeError(Data((text + "\n").utf8)) }

    /// `Error: <message>` on standard error, the prefix in red on a terminal.
    func error(_ message: String) {
        errorLine(TextStyle.red.apply("Error:", enabled: terminal.colorsError) + " " + message)
    }

    /// `Warning: <message>` on standard error, the prefix in yellow on a terminal.
    func warning(_ message: String) {
        errorLine(TextStyle.yellow.apply("Warning:", enabled: terminal.colorsError) + " " + message)
    }

    /// `text` in `style` when standard output gets colour.
    func styled(_ text: String, _ style: TextStyle) -> String { style.apply(text, enabled: terminal.colorsOutput) }

    /// `text` in `style` when standard error gets colour.
    func styledError(_ text: String, _ style: TextStyle) -> String { style.apply(text, enabled: terminal.colorsError) }
}
