// The names README and docs/ blocks use without declaring them, declared once so every block
// compiles as written (see scripts/readme-snippets.sh). A block's own declarations shadow these.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataPinning

let savedToken = "saved-token"
let savedAccessToken = "saved-token"
let cacheDirectory = URL(fileURLWithPath: "/tmp/strata-readme/etags")
let currentKeyPin = "sha256/oGkhelMEL+fU5WbnHJNHkLFAMJQj/p+q83PdZfa9moI="
let backupKeyPin = "sha256/yIxaZTUrxHs5GSGHHlTW6UJ9tDef4/z+FjTuIAhRM1I="
let production = DefaultAPIEnvironment(baseURL: URL(string: "https://api.example.com/v1")!)
let environment = production
let keychain = Keychain()
let auth = InMemoryAuthService(accessToken: savedToken)
let service = HTTPNetworkService(transport: URLSessionTransport(), authService: auth)
let reauth = ReauthTransport(inner: URLSessionTransport(), authService: auth) {}
let pins: any ServerTrustEvaluator = CertificatePinningEvaluator(certificates: [])

struct NewTodo: Encodable, Sendable { var title: String }
struct Todo: Codable, Sendable { var title: String }
struct User: Decodable, Sendable { var name: String }

enum TodoAPI: EndpointProtocol {
    case list(page: Int)
    var path: String { "/todos" }
    var method: HTTPMethod { .get }
}

enum TodoEndpoint: EndpointProtocol {
    case list
    var path: String { "/todos" }
    var method: HTTPMethod { .get }
}

enum AccountAPI: EndpointProtocol {
    case me
    var path: String { "/me" }
    var method: HTTPMethod { .get }
    var requiresAuth: Bool { true }
}

enum ArtifactAPI: EndpointProtocol {
    case latest
    var path: String { "/artifacts/latest" }
    var method: HTTPMethod { .get }
}

let transport: any Transport = URLSessionTransport()

struct ProfileEndpoint: EndpointProtocol {
    var path: String { "/profile" }
    var method: HTTPMethod { .get }
}

/// Where an app keeps its refresh token.
actor Keychain {
    private var stored = "refresh-token"
    func refreshToken() throws -> String { stored }
    func save(refreshToken: String) throws { stored = refreshToken }
}

/// An identity provider's SDK.
enum identityProvider {
    static func refresh() async throws -> String { "new-token" }
}

/// A metrics client.
enum metrics {
    static func count(_ name: String, tags: [String: String]) {}
    static func timing(_ name: String, _ duration: Duration, tags: [String: String]) {}
    static func recordRetry(_ retry: Int, after delay: Duration) {}
    static func recordRefresh(waiters: Int) {}
}

func showSignIn(because reason: any Error) {}
