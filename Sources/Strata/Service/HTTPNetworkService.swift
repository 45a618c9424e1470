#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// The front door of a Strata stack: turns an ``EndpointProtocol`` and an
/// ``APIEnvironmentProtocol`` into a request, sends it through a ``Transport``, checks the status
/// and decodes the body.
///
/// The service holds no state of its own beyond its configuration; build one per API and share
/// it. Everything else (retries, token refresh, caching, pinning, logging) is a transport:
/// ```swift
/// let auth = InMemoryAuthService(accessToken: savedToken)
/// let service = HTTPNetworkService(
///     transport: ReauthTransport(
///         inner: RetryTransport(inner: ETagTransport(inner: URLSessionTransport())),
///         authService: auth,
///         refreshToken: { try await auth.setAccessToken(signIn()) }),
///     authService: auth)
/// let todos: [Todo] = try await service.requestModels(to: TodoAPI.list(page: 1), via: production)
/// ```
///
/// Every failure is a ``NetworkError``, except cancellation, which is `CancellationError`.
/// The service never prints or logs anything itself.
public struct HTTPNetworkService: Sendable {
    /// The transport every request goes through.
    public let transport: any Transport
    /// Supplies the bearer token for endpoints whose `requiresAuth` is true.
    public let authService: (any AuthServiceProtocol)?
    private let encoder: JSONEncoder
    private let decoder: JSONDecoder

    /// Creates a service.
    ///
    /// - Parameters:
    ///   - transport: The transport stack. Default: a plain ``URLSessionTransport``.
    ///   - authService: The token source for authenticated endpoints. Without one, calling an
    ///     endpoint that requires authentication throws ``NetworkError/missingAccessToken``.
    public init(transport: any Transport = URLSessionTransport(),
                authService: (any AuthServiceProtocol)? = nil) {
        self.init(transport: transport, authService: authService, encoder: JSONEncoder(), decoder: JSONDecoder())
    }

    /// Creates a service with your own JSON coders (date strategies, key strategies).
    public init(transport: any Transport, authService: (any AuthServiceProtocol)?,
                encoder: JSONEncoder, decoder: JSONDecoder) {
        self.transport = transport
        self.authService = authService
        self.encoder = encoder
        self.decoder = decoder
    }

    /// Sends the endpoint's request and decodes a 2xx body as `T`.
    ///
    /// Use ``EmptyResponse`` as `T` for endpoints whose body you do not need (such as a 204).
    /// - Throws: ``NetworkError`` (``NetworkError/httpStatus(_:)`` for a non-2xx status,
    ///   ``NetworkError/decoding(_:body:)`` when the body does not decode), or `CancellationError`.
    public func request<T: Decodable>(to endpoint: some EndpointProtocol,
                                      via environment: some APIEnvironmentProtocol) async throws -> T {
        let response = try await response(to: endpoint, via: environment)
        if let empty = EmptyResponse() as? T { return empty }
        return try decode(T.self, from: response.body)
    }

    /// Sends the endpoint's request and decodes a 2xx body as a JSON array of `T`.
    ///
    /// - Throws: The same errors as ``request(to:via:)``.
    public func requestModels<T: Decodable>(to endpoint: some EndpointProtocol,
                                            via environment: some APIEnvironmentProtocol) async throws -> [T] {
        let response = try await response(to: endpoint, via: environment)
        return try decode([T].self, from: response.body)
    }

    /// Sends the endpoint's request and returns the raw response, validated as 2xx.
    ///
    /// - Throws: ``NetworkError/httpStatus(_:)`` for a status outside 2xx, another
    ///   ``NetworkError`` when the request cannot be built or sent, or `CancellationError`.
    public func response(to endpoint: some EndpointProtocol,
                         via environment: some APIEnvironmentProtocol) async throws -> HTTPResponse {
        let request = try await makeRequest(for: endpoint, via: environment)
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch let error as CancellationError {
            throw error
        } catch let error as NetworkError {
            throw error
        } catch {
            throw NetworkError.transport(error)
        }
        guard response.isSuccess else { throw NetworkError.httpStatus(response) }
        return response
    }

    /// Builds the request the service would send for an endpoint, including its bearer token.
    /// Useful to inspect or log requests, or to send them through a transport yourself.
    ///
    /// - Throws: ``NetworkError/invalidURL(_:)``, ``NetworkError/invalidHeader(_:)``,
    ///   ``NetworkError/encoding(_:)`` or ``NetworkError/missingAccessToken``.
    public func makeRequest(for endpoint: some EndpointProtocol,
                            via environment: some APIEnvironmentProtocol) async throws(NetworkError) -> URLRequest {
        var request = try RequestFactory(encoder: encoder).makeRequest(for: endpoint, via: environment)
        if endpoint.requiresAuth {
            guard let token = await authService?.accessToken(), !token.isEmpty else {
                throw .missingAccessToken
            }
            let value = "Bearer \(token)"
            do { try HTTPHeaders.validate(name: "Authorization", value: value) } catch { throw .invalidHeader(error) }
            request.setValue(value, forHTTPHeaderField: "Authorization")
        }
        return request
    }

    private func decode<T: Decodable>(_ type: T.Type, from body: Data) throws(NetworkError) -> T {
        do { return try decoder.decode(type, from: body) } catch { throw .decoding(error, body: body) }
    }
}
