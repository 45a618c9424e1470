#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata

/// Which requests a ``CannedRoute`` answers: an optional method and the URL's path, matched
/// exactly or by a regular expression that must match the whole path.
///
/// The path is the URL's decoded path without the query, such as `/users/42`.
public struct RequestPattern: Sendable, Hashable, CustomStringConvertible {
    private enum PathRule: Hashable {
        case exact(String)
        case regex(String)
    }

    /// The method to match, or `nil` for any method.
    package let method: HTTPMethod?
    private let rule: PathRule

    /// Matches requests whose path equals `path`.
    public init(method: HTTPMethod? = nil, path: String) {
        self.method = method
        rule = .exact(path)
    }

    /// Matches requests whose whole path matches the regular expression `pathRegex` (Swift
    /// `Regex` syntax), such as `/users/[0-9]+`.
    ///
    /// The expression is checked here: an invalid one makes the ``CannedRoutesTransport`` that
    /// holds it refuse every request with ``CannedRoutesError/invalidPattern(_:reason:)`` and a
    /// plain reason such as `expected ']'` (``CannedRoutesTransport/validated(routes:)`` throws it
    /// at once).
    public init(method: HTTPMethod? = nil, pathRegex: String) {
        self.method = method
        rule = .regex(pathRegex)
    }

    /// Checks that the pattern's regular expression compiles.
    ///
    /// - Throws: ``CannedRoutesError/invalidPattern(_:reason:)`` with the reason, such as
    ///   `expected ']'`.
    package func validate() throws(CannedRoutesError) {
        if case .regex(let pattern) = rule { _ = try Self.compile(pattern) }
    }

    /// Whether `request` matches this pattern.
    ///
    /// - Throws: ``CannedRoutesError/invalidPattern(_:reason:)`` for an invalid regular expression.
    package func matches(_ request: HTTPRequest) throws -> Bool {
        if let method, method != request.method { return false }
        let path = request.url.path
        switch rule {
        case .exact(let expected):
            return path == expected
        case .regex(let pattern):
            return try path.wholeMatch(of: Self.compile(pattern)) != nil
        }
    }

    /// For example `GET /users/42` or `any ~/users/[0-9]+`.
    public var description: String {
        let method = method?.rawValue ?? "any"
        switch rule {
        case .exact(let path): return "\(method) \(path)"
        case .regex(let pattern): return "\(method) ~\(pattern)"
        }
    }

    /// Swift's `Regex`, whose parse errors say what is wrong (`expected ']'`), where
    /// `NSRegularExpression` only says "The value is invalid."
    private static func compile(_ pattern: String) throws(CannedRoutesError) -> Regex<AnyRegexOutput> {
        do {
            return try Regex(pattern)
        } catch {
            throw .invalidPattern(pattern, reason: String(describing: error))
        }
    }
}
