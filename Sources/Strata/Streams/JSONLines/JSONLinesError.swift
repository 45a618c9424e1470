import Foundation

/// Why a JSON Lines (NDJSON) body could not be read. Line numbers count from 1, blank lines
/// included, so they match what an editor shows for the same bytes.
public enum JSONLinesError: Error, CustomStringConvertible {
    /// Line `line` is longer than `limit` bytes (the `maxLineBytes` you gave); reading stopped
    /// before holding more.
    case lineTooLong(line: Int, limit: Int)
    /// Line `line` is not a JSON value of the requested type; `underlying` is the decoder's error.
    case invalidLine(line: Int, underlying: any Error)

    /// What went wrong and where.
    public var description: String {
        switch self {
        case .lineTooLong(let line, let limit):
            "JSON Lines line \(line) is longer than the \(limit)-byte limit; raise maxLineBytes if its records are that large"
        case .invalidLine(let line, let underlying):
            "JSON Lines line \(line) could not be decoded: \(underlying)"
        }
    }
}

extension JSONLinesError: LocalizedError {
    /// The ``description``.
    public var errorDescription: String? { description }
}
