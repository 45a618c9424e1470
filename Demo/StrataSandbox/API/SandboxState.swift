import Foundation
import Strata

/// The sandbox API's secrets, data and counters, shared by its route handlers, which run on the
/// server's connection threads (hence the lock).
package final class SandboxState: Sendable {
    /// What the sandbox has seen, for the tour's narration and for tests.
    package struct Counters: Sendable {
        /// Calls of `POST /v1/token` that handed out a token.
        package var tokenGrants = 0
        /// Requests answered `401`.
        package var unauthorized = 0
        /// Calls of `GET /v1/health` that carried the valid token.
        package var healthCalls = 0
        /// Requests answered `304`.
        package var notModified = 0
        /// Calls of `GET /v1/reports` that carried the valid token (each answered `503`).
        package var reportCalls = 0
    }

    /// One todo, as the API serves it.
    struct Todo: Codable, Sendable {
        var id: Int
        var title: String
    }

    /// The todo list and its version; the list's entity tag changes whenever it does.
    struct Todos: Sendable {
        var items = [
            Todo(id: 1, title: "Buy milk"), Todo(id: 2, title: "Write the tour"),
            Todo(id: 3, title: "Rotate the pins"),
        ]
        var version = 1
        var entityTag: String { "\"todos-v\(version)\"" }
    }

    /// A token the sandbox no longer accepts (the tour starts with it).
    let expiredToken = "expired-" + UUID().uuidString
    /// The access token every route but `POST /v1/token` requires.
    let validToken = "valid-" + UUID().uuidString
    /// The refresh token `POST /v1/token` trades for ``validToken``.
    let refreshToken = "refresh-" + UUID().uuidString
    let counters = LockedValue(Counters())
    let todos = LockedValue(Todos())

    /// `nil` when the request carries the valid bearer token; otherwise the `401` to send
    /// (RFC 6750 §3.1).
    func refusal(of request: SandboxRequest) -> SandboxResponse? {
        guard request.header("Authorization") != "Bearer \(validToken)" else { return nil }
        counters.withLock { $0.unauthorized += 1 }
        return .json(
            #"{"error":"invalid_token"}"#, status: 401,
            headers: [("WWW-Authenticate", #"Bearer error="invalid_token""#)])
    }
}
