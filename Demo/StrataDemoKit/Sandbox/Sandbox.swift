import Foundation
import StrataPinning
import TestServer
import TLSTestServer

/// The tour's sandbox API: the test suite's TLS loopback server (OpenSSL server side, on
/// 127.0.0.1 with an OS-chosen port) presenting a leaf issued by the fixtures' intermediate CA,
/// with a few routes that misbehave on purpose.
///
/// Routes, all under `/v1` and all but `/v1/token` requiring `Authorization: Bearer <valid token>`:
/// - `POST /v1/token`: a refresh-token grant; answers the valid access token.
/// - `GET /v1/todos/1...3`: one todo each.
/// - `GET /v1/health`: `503` with `Retry-After: 0` on its first call, `200` afterwards.
/// - `GET /v1/todos`: the list, with an `ETag`; `304` when `If-None-Match` matches.
///
/// Tokens are random per sandbox, so a test can prove they never reach the output.
final class Sandbox: Sendable {
    /// The identity the server presents: leaf + intermediate, under the fixtures' root CA.
    static let identity = TLSLoopbackServer.Identity.viaIntermediate
    /// The list's entity tag.
    static let todosETag = "\"todos-v1\""

    /// The TLS server; it stops when the sandbox is released.
    let server: TLSLoopbackServer
    // Routes capture the state, never the sandbox: the server must not keep its owner alive.
    private let state = SandboxState()

    /// Starts the server.
    ///
    /// - Throws: `TLSServerSetupError` or `ServerError` when the fixtures or the socket are unusable.
    init() throws {
        server = try TLSLoopbackServer(identity: Self.identity)
        addRoutes()
    }

    /// The token the tour starts with, which the sandbox no longer accepts.
    var expiredToken: String { state.expiredToken }
    /// The token `POST /v1/token` hands out.
    var validToken: String { state.validToken }
    /// The refresh token the client presents to `POST /v1/token`.
    var refreshToken: String { state.refreshToken }

    /// `https://localhost:<port>/v1`; the leaf names `localhost`.
    var baseURL: URL { server.url("/v1") }

    /// `localhost:<port>`, as `strata-demo pin` takes it.
    var target: PinTarget { PinTarget(host: "localhost", port: server.port) }

    /// What the sandbox has seen so far.
    var seen: SandboxState.Counters { state.counters.withLock { $0 } }

    /// The fixtures' root CA file, the only trust anchor the tour's transports accept.
    static var caFile: URL { TLSLoopbackServer.fixtures.appendingPathComponent("ca.pem") }

    /// The certificates the server sends: leaf first, then the intermediate.
    static func presentedChain() throws -> [Certificate] {
        let url = TLSLoopbackServer.fixtures.appendingPathComponent(identity.chainFile)
        return try Certificate.certificates(pemBundle: String(contentsOf: url, encoding: .utf8))
    }

    /// The root CA certificate.
    static func caCertificate() throws -> Certificate {
        try Certificate(pem: String(contentsOf: caFile, encoding: .utf8))
    }

    private func addRoutes() {
        let http = server.http
        let state = state
        let json = [("Content-Type", "application/json")]
        http.route("/v1/token", method: "POST") { request in
            state.counters.withLock { $0.tokenGrants += 1 }
            let form = String(decoding: request.body, as: UTF8.self)
            guard form.contains("refresh_token=\(state.refreshToken)") else {
                return .init(status: 400, headers: json, text: #"{"error":"invalid_grant"}"#)
            }
            return .init(headers: json,
                         text: #"{"access_token":"\#(state.validToken)","token_type":"Bearer","expires_in":3600}"#)
        }
        for (id, title) in [(1, "Buy milk"), (2, "Write the tour"), (3, "Rotate the pins")] {
            let body = #"{"id":\#(id),"title":"\#(title)"}"#
            http.route("/v1/todos/\(id)", method: "GET") { request in
                state.refusal(of: request) ?? .init(headers: json, text: body)
            }
        }
        http.route("/v1/health", method: "GET") { request in
            if let refusal = state.refusal(of: request) { return refusal }
            let call = state.counters.withLock { counters -> Int in
                counters.healthCalls += 1
                return counters.healthCalls
            }
            // Retry-After: 0 keeps the tour fast while still exercising the header path.
            guard call > 1 else { return .init(status: 503, headers: [("Retry-After", "0")], text: "warming up") }
            return .init(headers: json, text: #"{"status":"ok"}"#)
        }
        http.route("/v1/todos", method: "GET") { request in
            if let refusal = state.refusal(of: request) { return refusal }
            let etag = [("ETag", Self.todosETag)]
            if request.header("If-None-Match") == Self.todosETag {
                state.counters.withLock { $0.notModified += 1 }
                return .init(status: 304, headers: etag)
            }
            let list = #"[{"id":1,"title":"Buy milk"},{"id":2,"title":"Write the tour"},{"id":3,"title":"Rotate the pins"}]"#
            return .init(headers: json + etag, text: list)
        }
    }
}
