#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata

/// A transport whose answers come from an async closure, recording every request it is sent:
/// the test double for code that needs an answer computed per request, one that waits (on a gate
/// the test opens), or a script of answers in order.
///
/// ```swift
/// let flaky = ClosureTransport.sequence([.failing(TransportError(.timedOut)), .succeeding(.status(503)),
///                                        .succeeding(CannedResponse(string: "ok"))])
/// let echo = ClosureTransport { request in
///     HTTPResponse(statusCode: 200, body: Data((request.value(forHTTPHeaderField: "X-Echo") ?? "").utf8))
/// }
/// _ = try await RetryTransport(inner: flaky, clock: TestClock()).send(request)
/// #expect(await flaky.recordedRequests.count == 3)
/// ```
/// Use ``CannedRoutesTransport`` when the answer depends on the path; use this type when it
/// depends on anything else, on timing, or on how many requests came before.
public final class ClosureTransport: Transport {
    /// One scripted answer of ``sequence(_:)``.
    public enum Answer: Sendable {
        /// Answers with `response` (its URL is the request's).
        case succeeding(CannedResponse)
        /// Throws `error`, as a failing network would.
        case failing(any Error)
    }

    private let handler: @Sendable (HTTPRequest) async throws -> HTTPResponse
    private let recorded = LockedValue<[HTTPRequest]>([])

    /// Answers each request with what `handler` returns for it (its URL set to the request's
    /// when it has none), or throws what it throws. `handler` may suspend (wait on a gate, sleep
    /// on a test clock); it is called once per request, concurrently when requests are.
    public init(_ handler: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) {
        self.handler = handler
    }

    /// A transport that answers every request with `response`.
    public static func succeeding(_ response: CannedResponse) -> ClosureTransport {
        ClosureTransport { _ in response.httpResponse(for: nil) }
    }

    /// A transport that throws `error` for every request.
    public static func failing(_ error: any Error) -> ClosureTransport {
        ClosureTransport { _ in throw error }
    }

    /// A transport that answers the first request with the first answer, the second with the
    /// second, and so on; once they run out, the last one repeats. An empty list answers `204`.
    public static func sequence(_ answers: [Answer]) -> ClosureTransport {
        let answers = answers.isEmpty ? [.succeeding(.status(204))] : answers
        let next = LockedValue(0)
        return ClosureTransport { _ in
            let index = next.withLock { index in
                defer { index += 1 }
                return min(index, answers.count - 1)
            }
            switch answers[index] {
            case .succeeding(let response): return response.httpResponse(for: nil)
            case .failing(let error): throw error
            }
        }
    }

    /// Every request sent so far, in the order the sends began.
    public var recordedRequests: [HTTPRequest] {
        get async { recorded.withLock { $0 } }
    }

    /// Records `request` and answers it from the closure.
    ///
    /// - Throws: What the closure throws, or `CancellationError` when the calling task is
    ///   cancelled before the closure runs.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        recorded.withLock { $0.append(request) }
        var response = try await handler(request)
        response.url = response.url ?? request.url
        return response
    }
}
