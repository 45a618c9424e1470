import Foundation
import Strata
import StrataDemoKit

/// Everything an in-process run wrote, per stream, for assertions.
final class CapturedOutput: Sendable {
    private let bytes = LockedValue<(standard: Data, error: Data)>((Data(), Data()))

    /// An output that writes into this capture, as to a pipe (no colour, no progress line).
    var output: DemoOutput {
        DemoOutput(
            terminal: .none,
            write: { data in self.bytes.withLock { $0.standard.append(data) } },
            writeError: { data in self.bytes.withLock { $0.error.append(data) } })
    }

    /// Standard output, without its final newline.
    var standard: String { Self.text(bytes.withLock { $0.standard }) }
    /// Standard output, line by line.
    var standardLines: [String] { standard.split(separator: "\n").map(String.init) }
    /// Standard error, without its final newline.
    var error: String { Self.text(bytes.withLock { $0.error }) }

    private static func text(_ data: Data) -> String {
        let text = String(decoding: data, as: UTF8.self)
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }
}
