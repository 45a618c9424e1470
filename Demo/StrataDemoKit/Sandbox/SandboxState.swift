import Foundation
import Strata
import TestServer

/// The sandbox's secrets and counters, shared by its route handlers, which run on the server's
/// connection threads (hence the mutex).
final class SandboxState: Sendable {
    /// What the sandbox has seen, for the narration and the tests.
    struct Counters: Sendable {
        /// Calls of `POST /v1/token`.
        var tokenGrants = 0
        /// Requests answered 401.
        var unauthorized = 0
        /// Calls of `GET /v1/health` that carried the valid token.
        var healthCalls = 0
        /// Requests answered 304.
        var notModified = 0
    }

    let expiredToken = "expired-" + UUID().uuidString
    let validToken = "valid-" + UUID().uuidString
    let refreshToken = "refresh-" + UUID().uuidString
    let counters = LockedValue(Counters())

    /// `nil` when the request carries the valid token; otherwise the 401 to send (RFC 6750 §3.1).
    func refusal(of request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response? {
        guard request.header("Authorization") != "Bearer \(validToken)" else { return nil }
        counters.withLock { $0.unauthorized += 1 }
        return .init(status: 401, headers: [("WWW-Authenticate", #"Bearer error="invalid_token""#)],
                     text: #"{"error":"invalid_token"}"#)
    }
}
