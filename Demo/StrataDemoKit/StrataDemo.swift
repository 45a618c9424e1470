import Foundation

/// The `strata-demo` command line: parses the arguments, runs the command, and returns the exit
/// status (0 success, 1 runtime failure, 22 an HTTP error status for `get`, 64 usage error).
public enum StrataDemo {
    /// Runs the command the arguments describe.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after the program name.
    ///   - output: Where results and diagnostics go.
    /// - Returns: The process exit status.
    public static func run(_ arguments: [String], output: DemoOutput = .console()) async -> Int32 {
        let command: DemoCommand
        do {
            command = try DemoCommand.parse(arguments, output: output)
        } catch {
            output.error(error.message)
            output.errorLine(error.guidance)
            return ExitStatus.usage.rawValue
        }
        let status: ExitStatus
        switch command {
        case .help(let text):
            output.line(text)
            status = .success
        case .tour(let verbose):
            do {
                _ = try await Tour(output: output, verbose: verbose).run()
                status = .success
            } catch {
                output.error("The tour failed: \(error)")
                status = .failure
            }
        case .get(let options):
            status = await GetCommand(options: options, output: output).run()
        case .pin(let command):
            status = await command.run()
        case .sandbox(let command):
            status = await command.run()
        }
        return status.rawValue
    }
}
