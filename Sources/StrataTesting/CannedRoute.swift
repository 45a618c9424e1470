#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata

/// One rule of a ``CannedRoutesTransport``: requests matching a ``RequestPattern`` get a
/// response, a sequence of responses, an error, or whatever a closure decides.
public struct CannedRoute: Sendable {
    enum Answer: Sendable {
        /// In order; the last one repeats.
        case responses([CannedResponse])
        case error(any Error)
        case handler(@Sendable (HTTPRequest) throws -> CannedResponse)
    }

    /// The requests this route answers.
    package let pattern: RequestPattern
    let answer: Answer

    /// Answers every matching request with `response`.
    public init(pattern: RequestPattern, response: CannedResponse) {
        self.init(pattern: pattern, responses: [response])
    }

    /// Answers matching requests with `responses` in order; once they run out, the last one
    /// repeats. Use it for "fail twice, then succeed". An empty list answers `204`.
    public init(pattern: RequestPattern, responses: [CannedResponse]) {
        self.pattern = pattern
        answer = .responses(responses.isEmpty ? [.status(204)] : responses)
    }

    /// Throws `error` for every matching request, as a failing network would.
    public init(pattern: RequestPattern, error: any Error) {
        self.pattern = pattern
        answer = .error(error)
    }

    /// Answers each matching request with what `respond` returns for it, or throws what it
    /// throws. Use it when the answer depends on the request (a header, the body).
    public init(pattern: RequestPattern, respond: @escaping @Sendable (HTTPRequest) throws -> CannedResponse) {
        self.pattern = pattern
        answer = .handler(respond)
    }
}
