#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata

/// A transport that answers requests from a list of routes and records every request it sees.
///
/// The first route whose pattern matches answers. A request no route matches throws
/// ``CannedRoutesError/unmatched(method:url:knownRoutes:)``, naming the request and the known
/// routes, so a missing route is obvious in the test output.
///
/// ```swift
/// let transport = CannedRoutesTransport(routes: [
///     CannedRoute(pattern: RequestPattern(method: .get, path: "/todos"),
///                 responses: [.status(503), CannedResponse(string: "[]")]),
///     CannedRoute(pattern: RequestPattern(pathRegex: "/todos/[0-9]+"), error: TransportError(.timedOut)),
/// ])
/// let service = HTTPNetworkService(transport: RetryTransport(inner: transport))
/// // ...
/// #expect(await transport.recordedRequests.count == 2)
/// ```
public final class CannedRoutesTransport: Transport {
    private struct State {
        var recorded: [HTTPRequest] = []
        /// How many times each route answered, by index, to walk response sequences.
        var uses: [Int: Int] = [:]
    }

    private let routes: [CannedRoute]
    private let state = LockedValue(State())
    /// The first invalid pattern among the routes: every request then fails with it.
    private let invalidPattern: CannedRoutesError?

    /// Creates a transport with routes, matched in order.
    ///
    /// Every route's pattern is checked now: if one has an invalid regular expression, every
    /// request fails with that ``CannedRoutesError/invalidPattern(_:reason:)``, whichever route
    /// it would match, so a typo cannot hide behind an earlier route. Use
    /// ``validated(routes:)`` to get the error here instead.
    public init(routes: [CannedRoute]) {
        self.routes = routes
        invalidPattern = Self.firstInvalidPattern(in: routes)
    }

    /// Creates a transport like ``init(routes:)``, but throws for an invalid pattern now.
    ///
    /// - Throws: ``CannedRoutesError/invalidPattern(_:reason:)`` for the first invalid pattern.
    public static func validated(routes: [CannedRoute]) throws(CannedRoutesError) -> CannedRoutesTransport {
        let transport = CannedRoutesTransport(routes: routes)
        if let invalid = transport.invalidPattern { throw invalid }
        return transport
    }

    private static func firstInvalidPattern(in routes: [CannedRoute]) -> CannedRoutesError? {
        for route in routes {
            do { try route.pattern.validate() } catch { return error }
        }
        return nil
    }

    /// Every request sent so far, in order, including unmatched ones.
    public var recordedRequests: [HTTPRequest] {
        get async { state.withLock { $0.recorded } }
    }

    /// Answers `request` from the first matching route.
    ///
    /// - Throws: The route's error, ``CannedRoutesError`` for an unmatched request or an invalid
    ///   pattern, or `CancellationError` when the calling task is cancelled.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        state.withLock { $0.recorded.append(request) }
        if let invalidPattern { throw invalidPattern }
        var matched: Int?
        for (index, route) in routes.enumerated() where try route.pattern.matches(request) {
            matched = index
            break
        }
        guard let index = matched else {
            throw CannedRoutesError.unmatched(
                method: request.method, url: request.url,
                knownRoutes: routes.map(\.pattern.description))
        }
        switch routes[index].answer {
        case .error(let error):
            throw error
        case .handler(let respond):
            return try respond(request).httpResponse(for: request.url)
        case .responses(let responses):
            let use = state.withLock { state -> Int in
                defer { state.uses[index, default: 0] += 1 }
                return state.uses[index, default: 0]
            }
            return responses[min(use, responses.count - 1)].httpResponse(for: request.url)
        }
    }
}
