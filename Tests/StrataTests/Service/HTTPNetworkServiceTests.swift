#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataTesting
import Testing

@Suite("HTTPNetworkService")
struct HTTPNetworkServiceTests {
    let environment = DefaultAPIEnvironment(baseURL: URL(string: "https://api.example.com/v1")!)

    @Test("a 2xx JSON body decodes into the requested type")
    func decodes() async throws {
        let service = HTTPNetworkService(transport: CannedResponseTransport(string: #"{"name":"a"}"#))
        let payload: Payload = try await service.request(to: TestEndpoint(path: "/p"), via: environment)
        #expect(payload == Payload(name: "a"))
    }

    @Test("requestModels decodes a JSON array")
    func decodesArray() async throws {
        let service = HTTPNetworkService(transport: CannedResponseTransport(string: #"[{"name":"a"},{"name":"b"}]"#))
        let payloads: [Payload] = try await service.requestModels(to: TestEndpoint(path: "/p"), via: environment)
        #expect(payloads.map(\.name) == ["a", "b"])
    }

    @Test("an empty 204 body works for a caller that decodes EmptyResponse")
    func emptyResponse() async throws {
        let service = HTTPNetworkService(transport: CannedResponseTransport(response: .status(204)))
        let _: EmptyResponse = try await service.request(to: TestEndpoint(path: "/p", method: .delete), via: environment)
    }

    @Test("a non-2xx status throws httpStatus with the whole response", arguments: [301, 404, 500])
    func httpStatus(status: Int) async throws {
        let service = HTTPNetworkService(transport: CannedResponseTransport(string: "nope", statusCode: status))
        await #expect {
            let _: Payload = try await service.request(to: TestEndpoint(path: "/p"), via: environment)
        } throws: { error in
            guard case NetworkError.httpStatus(let response) = error else { return false }
            return response.statusCode == status && response.text == "nope"
                && response.url?.absoluteString == "https://api.example.com/v1/p"
        }
    }

    @Test("an undecodable body throws decoding carrying the body")
    func decodingFailure() async throws {
        let service = HTTPNetworkService(transport: CannedResponseTransport(string: "<html>"))
        await #expect {
            let _: Payload = try await service.request(to: TestEndpoint(path: "/p"), via: environment)
        } throws: { error in
            guard case NetworkError.decoding(_, let body) = error else { return false }
            return body == Data("<html>".utf8) && "\(error)".contains("6 bytes")
        }
    }

    @Test("an endpoint that requires auth gets the bearer token")
    func bearerToken() async throws {
        let transport = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(path: "/v1/me"), response: CannedResponse(string: "{}"))
        ])
        let service = HTTPNetworkService(transport: transport, authService: InMemoryAuthService(accessToken: "t0k"))
        _ = try await service.response(to: TestEndpoint(path: "/me", requiresAuth: true), via: environment)
        _ = try await service.response(to: TestEndpoint(path: "/me"), via: environment)
        let sent = await transport.recordedRequests
        #expect(sent.map { $0.headers["Authorization"] } == ["Bearer t0k", nil])
    }

    @Test(
        "without a token an authenticated endpoint throws missingAccessToken and sends nothing",
        arguments: [nil, InMemoryAuthService()])
    func missingToken(auth: InMemoryAuthService?) async throws {
        let service = HTTPNetworkService(transport: neverCalledTransport(), authService: auth)
        await #expect {
            _ = try await service.response(to: TestEndpoint(path: "/me", requiresAuth: true), via: environment)
        } throws: { error in
            guard case NetworkError.missingAccessToken = error else { return false }
            return "\(error)".contains("not sent")
        }
    }

    @Test("a token containing CR/LF is refused rather than sent")
    func tokenInjection() async throws {
        let service = HTTPNetworkService(
            transport: neverCalledTransport(),
            authService: InMemoryAuthService(accessToken: "x\r\nX-Admin: 1"))
        await #expect {
            _ = try await service.response(to: TestEndpoint(path: "/me", requiresAuth: true), via: environment)
        } throws: { error in
            if case NetworkError.invalidHeader = error { return true }
            return false
        }
    }

    @Test("a body that fails to encode throws encoding and sends nothing")
    func encodingFailure() async throws {
        struct Unencodable: Encodable, Sendable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "no"))
            }
        }
        let service = HTTPNetworkService(transport: neverCalledTransport())
        await #expect {
            _ = try await service.response(to: TestEndpoint(path: "/p", method: .post, body: .json(Unencodable())), via: environment)
        } throws: { error in
            if case NetworkError.encoding = error { return true }
            return false
        }
    }

    @Test("a transport failure is wrapped in NetworkError.transport")
    func transportFailure() async throws {
        let failure = TransportError(.timedOut, message: "after 1 s")
        let transport = CannedRoutesTransport(routes: [CannedRoute(pattern: RequestPattern(pathRegex: ".*"), error: failure)])
        let service = HTTPNetworkService(transport: transport)
        await #expect {
            _ = try await service.response(to: TestEndpoint(path: "/p"), via: environment)
        } throws: { error in
            guard case NetworkError.transport(let underlying as TransportError) = error else { return false }
            return underlying.kind == .timedOut
        }
    }

    @Test("cancellation surfaces as CancellationError, not a NetworkError")
    func cancellation() async throws {
        let transport = CannedRoutesTransport(routes: [CannedRoute(pattern: RequestPattern(pathRegex: ".*"), error: CancellationError())])
        let service = HTTPNetworkService(transport: transport)
        await #expect(throws: CancellationError.self) {
            _ = try await service.response(to: TestEndpoint(path: "/p"), via: environment)
        }
    }

    @Test("an invalid URL is reported without sending")
    func invalidURL() async throws {
        let service = HTTPNetworkService(transport: neverCalledTransport())
        await #expect {
            _ = try await service.response(to: TestEndpoint(path: "/p?x=1"), via: environment)
        } throws: { error in
            if case NetworkError.invalidURL = error { return true }
            return false
        }
    }
}
