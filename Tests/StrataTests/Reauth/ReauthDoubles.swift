#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing

/// Test doubles for the reauth suites, namespaced so they cannot clash with other suites' helpers.
enum ReauthDoubles {
    /// A one-way gate: `wait()` suspends until `open()` is called; once open it stays open.
    /// Lets a test hold a refresh or a response at an exact point without sleeping.
    final class Gate: Sendable {
        private struct State {
            var isOpen = false
            var waiting: [CheckedContinuation<Void, Never>] = []
        }
        private let state = LockedValue(State())

        func wait() async {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if state.isOpen { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }

        func open() {
            let waiting = state.withLock { state in
                state.isOpen = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    /// An error a test's refresh closure throws, identifiable so a test can prove every waiter
    /// got this very error.
    struct RefreshRejected: Error, Equatable {
        let id: Int
    }

    /// A request to `https://api.example.com<path>`, with `Authorization` set when given.
    static func request(_ path: String, authorization: String? = nil) -> URLRequest {
        var request = URLRequest(url: URL(string: "https://api.example.com")!.appendingPathComponent(path))
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        return request
    }

    /// Answers 200 to `Bearer <accepted>` and 401 to anything else, like an API whose current
    /// token is `accepted`.
    static func acceptingOnly(_ accepted: String) -> @Sendable (HTTPRequest) throws -> CannedResponse {
        { request in
            request.headers["Authorization"] == "Bearer \(accepted)"
                ? CannedResponse(string: "ok") : .status(401)
        }
    }

    /// Yields until `condition` holds, so a test can line up a race without sleeping. Records an
    /// issue if it never does.
    static func waitUntil(
        _ condition: @Sendable () -> Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        for _ in 0..<1_000_000 {
            if condition() { return }
            await Task.yield()
        }
        Issue.record("the condition never became true", sourceLocation: sourceLocation)
    }
}
