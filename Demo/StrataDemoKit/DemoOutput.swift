import Foundation

/// Where the demo writes: standard output for the narration and results, standard error for
/// errors and live logs. Tests pass closures that capture both.
public struct DemoOutput: Sendable {
    /// Writes one line (a newline is added) to standard output.
    public var line: @Sendable (String) -> Void
    /// Writes one line (a newline is added) to standard error.
    public var errorLine: @Sendable (String) -> Void

    /// Creates an output from two line writers.
    ///
    /// - Parameters:
    ///   - line: Receives each line meant for standard output, without its newline.
    ///   - errorLine: Receives each line meant for standard error, without its newline.
    public init(line: @escaping @Sendable (String) -> Void, errorLine: @escaping @Sendable (String) -> Void) {
        self.line = line
        self.errorLine = errorLine
    }

    /// The process's standard output and standard error.
    public static let console = DemoOutput(
        line: { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) },
        errorLine: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) })
}
