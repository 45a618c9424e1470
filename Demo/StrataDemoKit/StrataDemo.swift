import Foundation

/// The `strata-demo` command line: parses the arguments, runs the tour or the pin command, and
/// returns the exit status (0 success, 1 runtime failure, 64 usage error).
public enum StrataDemo {
    /// The exit status of a runtime failure: the tour or a connection failed.
    static let failureExitCode: Int32 = 1

    /// Runs the command the arguments describe.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after the program name.
    ///   - output: Where narration, results and errors go.
    /// - Returns: The process exit status.
    public static func run(_ arguments: [String], output: DemoOutput = .console) async -> Int32 {
        let command: DemoCommand
        do {
            command = try DemoCommand.parse(arguments)
        } catch {
            output.errorLine(error.description)
            return UsageError.exitCode
        }
        switch command {
        case .help:
            output.line(HelpText.full)
            return 0
        case .tour(let verbose):
            do {
                _ = try await Tour(output: output, verbose: verbose).run()
                return 0
            } catch {
                output.errorLine("Error: the tour failed: \(error)")
                return failureExitCode
            }
        case .pin(let target, let caFile):
            do {
                let chain = try await PinCommand(target: target, caFile: caFile).verifiedChain()
                output.errorLine("Verified chain of \(target), leaf first; paste the pins into PublicKeyPinningEvaluator(pins:):")
                for certificate in chain { output.line(certificate.description) }
                return 0
            } catch {
                output.errorLine("Error: \(error)")
                return failureExitCode
            }
        }
    }
}
