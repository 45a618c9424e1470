import Foundation
import Strata

/// The sandbox's API as an enum endpoint, one case per operation, as the README's quick start
/// writes one.
enum SandboxAPI: EndpointProtocol {
    /// `POST /token`: trade the refresh token for a new access token.
    case refresh(refreshToken: String)
    /// `GET /todos/{id}`.
    case todo(id: Int)
    /// `GET /health`: fails once with 503.
    case health
    /// `GET /todos`: carries an ETag.
    case todos
    /// `GET /reports`: a dependency that is down, `503` on every call.
    case reports

    var path: String {
        switch self {
        case .refresh: "/token"
        case .todo(let id): "/todos/\(id)"
        case .health: "/health"
        case .todos: "/todos"
        case .reports: "/reports"
        }
    }

    var method: HTTPMethod {
        guard case .refresh = self else { return .get }
        return .post
    }

    var body: RequestBody? {
        guard case .refresh(let refreshToken) = self else { return nil }
        return .form([
            URLQueryItem(name: "grant_type", value: "refresh_token"),
            URLQueryItem(name: "refresh_token", value: refreshToken),
        ])
    }

    var requiresAuth: Bool {
        guard case .refresh = self else { return true }
        return false
    }
}

/// The body of `POST /token`'s answer (RFC 6749 §5.1).
struct TokenGrant: Decodable {
    let accessToken: String

    enum CodingKeys: String, CodingKey { case accessToken = "access_token" }
}

/// One todo of the sandbox.
struct Todo: Decodable {
    let id: Int
    let title: String
}
