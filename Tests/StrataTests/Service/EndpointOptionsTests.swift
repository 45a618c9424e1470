#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataTesting
import Testing
import TestServer

@Suite("What an endpoint can say: its timeout and the statuses it accepts")
struct EndpointOptionsTests {
    let environment = DefaultAPIEnvironment(baseURL: URL(string: "https://api.example.com/v1")!)

    // MARK: acceptedStatusCodes

    @Test("by default only 2xx is accepted: a 404 throws httpStatus")
    func defaultAccepts2xx() async throws {
        struct Defaults: EndpointProtocol {
            var path: String { "/todos/7" }
            var method: HTTPMethod { .get }
        }
        #expect(Defaults().acceptedStatusCodes == Set(200..<300))
        #expect(Defaults().timeout == nil)
        let service = HTTPNetworkService(transport: CannedResponseTransport(response: .status(404)))
        await #expect(throws: NetworkError.self) { _ = try await service.response(to: Defaults(), via: environment) }
    }

    @Test("a 404 the endpoint accepts is returned, and an optional model decodes as nil")
    func accepted404() async throws {
        let absent = TestEndpoint(path: "/todos/7", acceptedStatusCodes: Set(200..<300).union([404]))
        let service = HTTPNetworkService(transport: CannedResponseTransport(string: #"{"error":"no such todo"}"#, statusCode: 404))
        #expect(try await service.response(to: absent, via: environment).statusCode == 404)
        let payload: Payload? = try await service.request(to: absent, via: environment)
        #expect(payload == nil)
    }

    @Test("an accepted 2xx still decodes an optional model")
    func optionalModelOn200() async throws {
        let endpoint = TestEndpoint(path: "/todos/7", acceptedStatusCodes: Set(200..<300).union([404]))
        let service = HTTPNetworkService(transport: CannedResponseTransport(string: #"{"name":"a"}"#))
        let payload: Payload? = try await service.request(to: endpoint, via: environment)
        #expect(payload == Payload(name: "a"))
    }

    @Test("a status outside the accepted set throws even when it is 2xx")
    func narrowerSet() async throws {
        let strict = TestEndpoint(path: "/jobs", method: .post, acceptedStatusCodes: [201])
        let service = HTTPNetworkService(transport: CannedResponseTransport(string: "{}", statusCode: 200))
        await #expect {
            _ = try await service.response(to: strict, via: environment)
        } throws: { error in
            guard case NetworkError.httpStatus(let response) = error else { return false }
            return response.statusCode == 200
        }
    }

    @Test("the decoded model comes with status, headers and source in one call")
    func decodedResponse() async throws {
        let origin = ClosureTransport.sequence([
            .succeeding(CannedResponse(string: #"{"name":"a"}"#, headers: ["ETag": "\"v1\""])),
            .succeeding(.status(304, headers: ["ETag": "\"v1\""])),
        ])
        let service = HTTPNetworkService(transport: ETagTransport(inner: origin))
        let first = try await service.response(to: TestEndpoint(path: "/p"), via: environment, decoding: Payload.self)
        let second = try await service.response(to: TestEndpoint(path: "/p"), via: environment, decoding: Payload.self)
        #expect(first.model == Payload(name: "a") && first.statusCode == 200 && first.source == .network)
        #expect(second.model == Payload(name: "a") && second.statusCode == 200 && second.source == .revalidated)
        #expect(second.headers["ETag"] == "\"v1\"")
    }

    // MARK: timeout

    @Test("an endpoint's timeout ends a request URLSessionTransport would otherwise wait for, with timedOut")
    func timeoutOverURLSession() async throws {
        let server = try LoopbackHTTPServer()
        server.route("/slow", response: .init(text: "late", delay: .seconds(30)))
        let service = HTTPNetworkService(transport: URLSessionTransport(requestTimeout: .seconds(60)))
        let slow = TestEndpoint(path: "/slow", timeout: .milliseconds(300))
        await #expect {
            _ = try await service.response(to: slow, via: DefaultAPIEnvironment(baseURL: server.url("/")))
        } throws: { error in
            guard case NetworkError.transport(let transport as TransportError) = error else { return false }
            return transport.kind == .timedOut && transport.message.contains("timeout of 300.00 ms")
        }
    }

    @Test("a request whose deadline already passed is not sent")
    func passedDeadlineSendsNothing() async throws {
        let server = try LoopbackHTTPServer()
        server.route("/a", response: .init(text: "a"))
        let transport = URLSessionTransport()
        await #expect(throws: TransportError.self) {
            try await RequestDeadline.withTimeout(.zero) { try await transport.send(URLRequest(url: server.url("/a"))) }
        }
        #expect(server.requestCount == 0)
    }

    @Test("the timeout is RetryTransport's budget for all attempts: no wait that would pass it")
    func timeoutBoundsRetries() async throws {
        let inner = CannedRoutesTransport(routes: [CannedRoute(pattern: RequestPattern(path: "/v1/p"), response: .status(503))])
        let clock = TestClock()
        let service = HTTPNetworkService(
            transport: RetryTransport(
                inner: inner, policy: RetryPolicy(maxRetries: 5, baseDelay: .milliseconds(500), jitter: .none, budget: nil),
                clock: clock))
        // Waits of 0.5 s and 1 s fit in 2 s; the next, 2 s, would not.
        await #expect(throws: NetworkError.self) {
            _ = try await service.response(to: TestEndpoint(path: "/p", timeout: .seconds(2)), via: environment)
        }
        #expect(clock.sleeps == [.milliseconds(500), .seconds(1)])
        #expect(await inner.recordedRequests.count == 3)
    }

    @Test("nested deadlines keep the earlier one; a layer's own work runs without one")
    func nestedAndDetached() async {
        await RequestDeadline.withTimeout(.seconds(1)) {
            let outer = RequestDeadline.current
            await RequestDeadline.withTimeout(.seconds(60)) { #expect(RequestDeadline.current == outer) }
            await RequestDeadline.withTimeout(.milliseconds(1)) {
                #expect(RequestDeadline.current.map { $0 < outer! } == true)
            }
            await TransportEvents.detached { #expect(RequestDeadline.current == nil) }
        }
        #expect(RequestDeadline.current == nil && RequestDeadline.remaining == nil)
    }
}
