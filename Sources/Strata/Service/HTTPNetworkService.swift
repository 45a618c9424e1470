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
    let decoder: JSONDecoder // Internal: the streaming entry points decode JSON Lines with it.

    /// Creates a service.
    ///
    /// - Parameters:
    ///   - transport: The transport stack. Default: a plain ``URLSessionTransport``.
    ///   - authService: The token source for authenticated endpoints. Without one, calling an
    ///     endpoint that requires authentication throws ``NetworkError/missingAccessToken``.
    public init(
        transport: any Transport = URLSessionTransport(),
        authService: (any AuthServiceProtocol)? = nil
    ) {
        self.init(transport: transport, authService: authService, encoder: JSONEncoder(), decoder: JSONDecoder())
    }

    /// Creates a service with your own JSON coders (date strategies, key strategies).
    public init(
        transport: any Transport, authService: (any AuthServiceProtocol)?,
        encoder: JSONEncoder, decoder: JSONDecoder
    ) {
        self.transport = transport
        self.authService = authService
        self.encoder = encoder
        self.decoder = decoder
    }

    /// Sends the endpoint's request and decodes the body of an accepted response as `T`.
    ///
    /// Use ``EmptyResponse`` as `T` for endpoints whose body you do not need (such as a 204).
    /// When the endpoint accepts a status outside 2xx (``EndpointProtocol/acceptedStatusCodes``)
    /// and `T` is optional, that status yields `nil`: `let todo: Todo? = …` for a `404` that means
    /// "absent".
    /// - Throws: ``NetworkError`` (``NetworkError/httpStatus(_:)`` for a status the endpoint does
    ///   not accept, ``NetworkError/decoding(_:body:)`` when the body does not decode), or
    ///   `CancellationError`.
    public func request<T: Decodable>(
        to endpoint: some EndpointProtocol,
        via environment: some APIEnvironmentProtocol
    ) async throws -> T {
        try await response(to: endpoint, via: environment, decoding: T.self).model
    }

    /// Sends the endpoint's request and decodes an accepted body as a JSON array of `T`.
    ///
    /// - Throws: The same errors as ``request(to:via:)``.
    public func requestModels<T: Decodable>(
        to endpoint: some EndpointProtocol,
        via environment: some APIEnvironmentProtocol
    ) async throws -> [T] {
        try await response(to: endpoint, via: environment, decoding: [T].self).model
    }

    /// Sends the endpoint's request and returns the decoded model together with the response it
    /// came from: status, headers and ``HTTPResponse/source`` (whether an ETag store answered).
    ///
    /// ```swift
    /// let result = try await service.response(to: TodoAPI.todo(id: 7), via: production, decoding: Todo.self)
    /// print(result.model.title, result.statusCode, result.headers["ETag"] ?? "", result.source)
    /// ```
    /// Decoding follows ``request(to:via:)``.
    /// - Throws: The same errors as ``request(to:via:)``.
    public func response<T: Decodable>(
        to endpoint: some EndpointProtocol,
        via environment: some APIEnvironmentProtocol,
        decoding type: T.Type
    ) async throws -> DecodedResponse<T> {
        let response = try await response(to: endpoint, via: environment)
        return DecodedResponse(model: try decodeModel(T.self, from: response), response: response)
    }

    /// Sends the endpoint's request and returns the raw response, checked against the
    /// endpoint's ``EndpointProtocol/acceptedStatusCodes`` (2xx by default), within its
    /// ``EndpointProtocol/timeout``, under its ``EndpointProtocol/cachePolicy``.
    ///
    /// - Throws: ``NetworkError/httpStatus(_:)`` for a status the endpoint does not accept,
    ///   another ``NetworkError`` when the request cannot be built or sent, or `CancellationError`.
    public func response(
        to endpoint: some EndpointProtocol,
        via environment: some APIEnvironmentProtocol
    ) async throws -> HTTPResponse {
        let request = try await makeRequest(for: endpoint, via: environment)
        let response: HTTPResponse
        do {
            let cachePolicy = endpoint.cachePolicy
            if let timeout = endpoint.timeout {
                response = try await RequestDeadline.withTimeout(timeout) {
                    try await cachePolicy.applyUnlessStandard { try await transport.send(request) }
                }
            } else {
                response = try await cachePolicy.applyUnlessStandard { try await transport.send(request) }
            }
        } catch {
            throw Self.networkError(error)
        }
        guard endpoint.acceptedStatusCodes.contains(response.statusCode) else { throw NetworkError.httpStatus(response) }
        return response
    }

    /// What the service throws for `error` from its transport: cancellation and its own errors
    /// as they are, anything else as ``NetworkError/transport(_:)``.
    static func networkError(_ error: any Error) -> any Error {
        switch error {
        case is CancellationError, is NetworkError: error
        default: NetworkError.transport(error)
        }
    }

    /// Builds the request the service would send for an endpoint, including its bearer token.
    /// Useful to inspect or log requests, or to send them through a transport yourself.
    ///
    /// - Throws: ``NetworkError/invalidURL(_:)``, ``NetworkError/invalidHeader(_:)``,
    ///   ``NetworkError/encoding(_:)`` or ``NetworkError/missingAccessToken``.
    public func makeRequest(
        for endpoint: some EndpointProtocol,
        via environment: some APIEnvironmentProtocol
    ) async throws(NetworkError) -> HTTPRequest {
        let request = try RequestFactory(encoder: encoder).makeRequest(for: endpoint, via: environment)
        guard endpoint.requiresAuth else { return request }
        guard let token = await authService?.accessToken(), !token.isEmpty else { throw .missingAccessToken }
        do { return try BearerCredential.authorizing(request, with: token) } catch { throw .invalidHeader(error) }
    }

    /// The model of an accepted response: nothing for ``EmptyResponse``, `nil` for an optional
    /// model of a status outside 2xx, the decoded body otherwise.
    private func decodeModel<T: Decodable>(_ type: T.Type, from response: HTTPResponse) throws(NetworkError) -> T {
        if let empty = EmptyResponse() as? T { return empty }
        if !response.isSuccess, let optional = T.self as? any ExpressibleByNilLiteral.Type,
            let none = optional.init(nilLiteral: ()) as? T
        {
            return none
        }
        return try decode(T.self, from: response.body)
    }

    private func decode<T: Decodable>(_ type: T.Type, from body: Data) throws(NetworkError) -> T {
        do { return try decoder.decode(type, from: body) } catch { throw .decoding(error, body: body) }
    }
}
