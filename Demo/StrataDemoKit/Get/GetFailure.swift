import Foundation
import Strata
import StrataPinning

/// Why `strata-demo get` has no response to show (exit status 1).
enum GetFailure: Error, CustomStringConvertible {
    /// A file named by `--data @file` or `--ca` could not be read or used.
    case input(InputFile.Failure)
    /// The `--token` source held no usable token; the message names the source, never the token.
    case token(String)
    /// The `--etag-dir` directory could not be created or used.
    case etagDirectory(FileETagStoreError)
    /// The pins or the CA could not be applied to the URL's host.
    case pinning(PinningConfigurationError)
    /// `--timeout` passed before the response was complete (what had arrived was written).
    case timedOut(Duration)
    /// The request failed: connection, TLS, pin check, a malformed response. Carries the
    /// description with every secret of the request scrubbed.
    case transport(String)
    /// The `-o` file could not be written.
    case output(path: String, reason: String)
    /// The body was about to be shown on a terminal and is binary (``TerminalBody``): it was
    /// not written, and the message says how to get it.
    case binaryBody

    var description: String {
        switch self {
        case .input(let failure):
            failure.description
        case .token(let message):
            message
        case .etagDirectory(let error):
            error.description
        case .pinning(let error):
            error.description
        case .timedOut(let timeout):
            "The response did not complete within \(Self.seconds(timeout)) s (--timeout)."
        case .transport(let description):
            description
        case .output(let path, let reason):
            "Cannot write '\(path)': \(reason). The response was not saved."
        case .binaryBody:
            "The response body is binary (a NUL byte in its first \(TerminalBody.binaryCheckBytes) bytes) and can mess up "
                + "your terminal, so it was not shown. Use '-o -' to write it to the terminal anyway, "
                + "or '-o <file>' to save it to a file."
        }
    }

    /// `1.5` for 1.5 seconds, `30` for 30.
    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%g", Double(seconds) + Double(attoseconds) / 1e18)
    }
}
