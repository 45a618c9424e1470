import Foundation
import Strata

/// A test-setup problem reported by ``CannedRoutesTransport``.
public enum CannedRoutesError: Error, CustomStringConvertible {
    /// No route matched the request.
    case unmatched(method: HTTPMethod, url: URL?, knownRoutes: [String])
    /// A route's path regular expression does not compile.
    case invalidPattern(String, reason: String)

    /// What happened, with the routes the transport knows, so the test can be fixed.
    public var description: String {
        switch self {
        case .unmatched(let method, let url, let routes):
            let known = routes.isEmpty ? "  (none)" : routes.map { "  \($0)" }.joined(separator: "\n")
            return "No canned route matches \(method) \(Redaction().redact(url)). Known routes:\n\(known)"
        case .invalidPattern(let pattern, let reason):
            return "The route pattern \(pattern.debugDescription) is not a valid regular expression: \(reason)"
        }
    }
}

extension CannedRoutesError: LocalizedError {
    /// The same text as `description`, so `localizedDescription` says what happened and what
    /// to do instead of "The operation could not be completed".
    public var errorDescription: String? { description }
}
