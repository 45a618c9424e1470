#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata

// The README's quick start, compiled so the manual cannot drift from the API.

struct NewTodo: Encodable, Sendable { var title: String }
struct Todo: Decodable, Sendable { var title: String }


enum TodoAPI: EndpointProtocol {
    case list(page: Int)
    case todo(id: Int)
    case create(NewTodo)
    case delete(id: Int)

    var path: String {
        switch self {
        case .list, .create: "/todos"
        case .todo(let id), .delete(let id): "/todos/\(id)"
        }
    }
    var method: HTTPMethod {
        switch self {
        case .list, .todo: .get
        case .create: .post
        case .delete: .delete
        }
    }
    var query: [URLQueryItem]? {
        guard case .list(let page) = self else { return nil }
        return [URLQueryItem(name: "page", value: String(page))]
    }
    var body: RequestBody? {
        guard case .create(let todo) = self else { return nil }
        return .json(todo)
    }
    var requiresAuth: Bool { true }
}

func readmeQuickStart(savedToken: String) async throws {
    let production = DefaultAPIEnvironment(baseURL: URL(string: "https://api.example.com/v1")!)
    let auth = InMemoryAuthService(accessToken: savedToken)
    let service = HTTPNetworkService(transport: URLSessionTransport(), authService: auth)

    let todos: [Todo] = try await service.requestModels(to: TodoAPI.list(page: 1), via: production)
    let todo: Todo = try await service.request(to: TodoAPI.todo(id: 7), via: production)
    let _: EmptyResponse = try await service.request(to: TodoAPI.delete(id: 7), via: production)
    _ = (todos, todo)
}
