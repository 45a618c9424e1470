import StrataDemoKit
import Strata

/// Everything a run wrote, per stream, for assertions.
final class CapturedOutput: Sendable {
    private let lines = LockedValue<(standard: [String], error: [String])>(([], []))

    /// An output that writes into this capture.
    var output: DemoOutput {
        DemoOutput(line: { line in self.lines.withLock { $0.standard.append(line) } },
                   errorLine: { line in self.lines.withLock { $0.error.append(line) } })
    }

    /// Standard output, one string.
    var standard: String { lines.withLock { $0.standard.joined(separator: "\n") } }
    /// Standard output, line by line (a written line may hold several).
    var standardLines: [String] { standard.split(separator: "\n").map(String.init) }
    /// Standard error, one string.
    var error: String { lines.withLock { $0.error.joined(separator: "\n") } }
}
