#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata

// Core names from api.md, used the way a consumer writes them.

struct LoggingDecorator: Transport {
    let inner: any Transport
    func send(_ request: HTTPRequest) async throws -> HTTPResponse { try await inner.send(request) }
}

enum ContractAPI: EndpointProtocol {
    case item(id: Int)
    case create(name: String)
    case form

    var path: String {
        switch self {
        case .item(let id): "/items/\(id)"
        case .create, .form: "/items"
        }
    }
    var method: HTTPMethod {
        switch self {
        case .item: .get
        case .create, .form: .post
        }
    }
    var body: RequestBody? {
        switch self {
        case .item: nil
        case .create(let name): .json(["name": name])
        case .form: .form([URLQueryItem(name: "a", value: "b")])
        }
    }
    var requiresAuth: Bool { true }
}

struct ContractEnvironment: APIEnvironmentProtocol {
    var baseURL: URL { URL(fileURLWithPath: "/") }
}

func coreContract() async throws {
    var response = HTTPResponse(statusCode: 200, headers: [:], body: Data(), url: nil)
    response.statusCode = 204
    var headers: HTTPHeaders = ["Accept": "application/json"]
    headers["X-A"] = "1"
    headers.add(name: "X-A", value: "2")
    headers.remove(name: "X-A")
    _ = headers.values(for: "Accept")
    for (name, value) in headers { _ = (name, value) }
    let methods: [HTTPMethod] = [.get, .post, .put, .patch, .delete, .head, .options, .trace, "PROPFIND"]
    _ = methods.map(\.isIdempotent)
    _ = HTTPMethod(rawValue: "GET")

    let environment = DefaultAPIEnvironment(baseURL: URL(fileURLWithPath: "/"), headers: [:])
    let defaultHeaders: [String: String] = ContractEnvironment().headers
    _ = (environment.baseURL, environment.headers, defaultHeaders)
    let endpoint = ContractAPI.item(id: 1)
    let _: [URLQueryItem]? = endpoint.query
    let _: [String: String] = endpoint.headers
    _ = RequestBody.data(Data(), contentType: "application/octet-stream")

    let auth: any AuthServiceProtocol = InMemoryAuthService(accessToken: nil)
    await auth.setAccessToken("t")
    _ = await auth.accessToken()

    let service = HTTPNetworkService(transport: LoggingDecorator(inner: URLSessionTransport()), authService: auth)
    _ = HTTPNetworkService()
    _ = URLSessionTransport(configuration: .ephemeral)
    let _: [String: Int] = try await service.request(to: endpoint, via: environment)
    let _: [Int] = try await service.requestModels(to: endpoint, via: environment)
    let _: HTTPResponse = try await service.response(to: endpoint, via: environment)

    do {
        _ = try await service.response(to: ContractAPI.form, via: environment)
    } catch NetworkError.httpStatus(let response) {
        _ = response.statusCode
    } catch NetworkError.decoding(let error, let body) {
        _ = (error, body)
    }
}

/// The 0.3 request, body and streaming names, as a consumer spells them.
func contractStreaming(_ transport: any Transport, file: URL) async throws {
    var request = HTTPRequest(method: .put, url: URL(string: "https://api.example.com/upload")!,
                              headers: ["Content-Type": "application/octet-stream"],
                              body: try HTTPBody(contentsOf: file))
    request.headers.add(name: "X-Trace", value: "1")
    let replayable: Bool = request.body?.isReplayable ?? true
    let length: Int64? = request.body?.length
    _ = (replayable, length)
    _ = try await transport.send(request)
    let size: Int = try await transport.stream(HTTPRequest(url: URL(string: "https://api.example.com/big")!)) { head, body in
        let _: HTTPResponseHead = head
        var total = 0
        for try await chunk in body { total += chunk.count }
        return total
    }
    _ = size
    _ = try await HTTPBody("text").collect(upTo: 1 << 20)
    _ = HTTPBody(Data())
    let bridged = try HTTPRequest(URLRequest(url: URL(string: "https://api.example.com/")!))
    let back: URLRequest = bridged.urlRequest
    _ = try await transport.send(back)
}
