import Foundation

/// The demo's sandbox API: a ``SandboxServer`` on 127.0.0.1 over TLS, with a private CA and a
/// `localhost` certificate generated at startup (EC P-256, valid for ``certificateLifetime``),
/// and a few routes that misbehave on purpose. Nothing is read from disk.
///
/// Routes, all under `/v1`, all but `POST /v1/token` requiring `Authorization: Bearer <valid token>`:
/// - `POST /v1/token`: a refresh-token grant (`grant_type=refresh_token&refresh_token=…`).
/// - `GET /v1/todos`: the list, with an `ETag`; `304` when `If-None-Match` matches.
/// - `POST /v1/todos`: adds `{"title": "…"}`; `201`, and the list's `ETag` changes.
/// - `GET /v1/todos/{id}`: one todo.
/// - `GET /v1/health`: `503` with `Retry-After: 0` on its first call, `200` afterwards.
/// - `GET /v1/reports`: `503` without `Retry-After` on every call (a dependency that is down),
///   counted in ``SandboxState/Counters/reportCalls``, so a client can prove what it did not send.
/// - `GET /v1/export`: a 1 MiB export that starts after ``exportDelay``, for a progress line.
///
/// Tokens are random per sandbox, so a test can prove they never reach the output.
package final class Sandbox: Sendable {
    /// How long the generated certificates are valid: a day, so a leaked one soon expires.
    package static let certificateLifetime: Duration = .seconds(24 * 60 * 60)
    /// How long `GET /v1/export` waits before it answers.
    package static let exportDelay: Duration = .milliseconds(1_500)
    /// The size of `GET /v1/export`'s body.
    package static let exportBytes = 1 << 20
    /// The longest todo title `POST /v1/todos` accepts.
    static let maxTitleLength = 200

    /// The TLS server; it stops when the sandbox is released.
    package let server: SandboxServer
    /// The private CA: the only trust anchor a client needs.
    package let caCertificate: GeneratedCertificate
    /// The certificate the server presents, for `localhost`, `127.0.0.1` and `::1`.
    package let serverCertificate: GeneratedCertificate
    // Routes capture the state, never the sandbox: the server must not keep its owner alive.
    private let state = SandboxState()

    /// Generates the CA and the server certificate and starts the server.
    ///
    /// - Parameter port: The port on 127.0.0.1; 0 (the default) lets the OS choose.
    /// - Throws: ``SandboxServerError`` when the port is taken or OpenSSL fails.
    package init(port: Int = 0) throws(SandboxServerError) {
        let identity: ServerIdentity
        do {
            let authority = try CertificateAuthority(name: "Strata Sandbox CA", lifetime: Self.certificateLifetime)
            identity = try authority.issueServerIdentity(
                dnsNames: ["localhost"], ipAddresses: ["127.0.0.1", "::1"],
                lifetime: Self.certificateLifetime)
            caCertificate = authority.certificate
        } catch {
            throw .tls(error)
        }
        serverCertificate = identity.certificate
        server = try SandboxServer(identity: identity, port: port)
        SandboxRoutes(state: state).add(to: server)
    }

    /// `https://localhost:<port>/v1`.
    package var baseURL: URL { server.url("/v1") }

    /// A token the sandbox refuses with `401`, as an expired one would be.
    package var expiredToken: String { state.expiredToken }
    /// The access token the routes accept.
    package var validToken: String { state.validToken }
    /// The refresh token `POST /v1/token` accepts.
    package var refreshToken: String { state.refreshToken }

    /// What the sandbox has seen so far.
    package var seen: SandboxState.Counters { state.counters.withLock { $0 } }
}
