import Foundation
@testable import Strata
import StrataTesting
import Testing

@Suite("HTTPNetworkService: server-sent events and JSON Lines from an endpoint")
struct ServiceEventsTests {
    let environment = DefaultAPIEnvironment(baseURL: URL(string: "https://api.example.com")!)

    struct Row: Codable, Hashable, Sendable {
        var n: Int
    }

    @Test("every connection is the endpoint's request built anew: its headers and the current token")
    func eventsRebuildRequest() async throws {
        let auth = InMemoryAuthService(accessToken: "one")
        let script = EventStreamScript([.events("id: 1\ndata: a\n\n")])
        let service = HTTPNetworkService(transport: RenewingAfterEachCall(inner: script, auth: auth), authService: auth)
        let endpoint = TestEndpoint(path: "/feed", headers: ["X-Tenant": "acme"], requiresAuth: true)
        #expect(try await Array(service.events(endpoint, via: environment, clock: TestClock())).map(\.data) == ["a"])
        #expect(script.requests.map { $0.headers["Authorization"] } == ["Bearer one", "Bearer two"])
        #expect(script.requests.allSatisfy { $0.headers["X-Tenant"] == "acme" && $0.url.path == "/feed" })
        #expect(script.requests.last?.headers["Last-Event-ID"] == "1")
    }

    /// Renews the token elsewhere (as another request's refresh would) after each call.
    struct RenewingAfterEachCall: Transport {
        let inner: EventStreamScript
        let auth: InMemoryAuthService
        func send(_ request: HTTPRequest) async throws -> HTTPResponse { try await inner.send(request) }
        func stream<Result: Sendable>(
            _ request: HTTPRequest,
            _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
        ) async throws -> Result {
            let result = try await inner.stream(request, consume)
            await auth.setAccessToken("two")
            return result
        }
    }

    @Test("the endpoint's timeout bounds each connection")
    func timeoutPerConnection() async throws {
        let script = EventStreamScript([.events("data: a\n\n")])
        let service = HTTPNetworkService(transport: script)
        _ = try await Array(service.events(TestEndpoint(path: "/feed", timeout: .seconds(30)), via: environment, clock: TestClock()))
        #expect(script.hadDeadline == [true, true])
        let untimed = EventStreamScript([])
        _ = try await Array(HTTPNetworkService(transport: untimed).events(TestEndpoint(path: "/feed"), via: environment))
        #expect(untimed.hadDeadline == [false])
    }

    @Test("a rejected event stream throws NetworkError.httpStatus, as the service's other calls do")
    func eventsStatus() async throws {
        let script = EventStreamScript([.respond(status: 403, contentType: "text/plain", chunks: ["no"])])
        let error = await #expect(throws: NetworkError.self) {
            _ = try await Array(HTTPNetworkService(transport: script).events(TestEndpoint(path: "/feed"), via: environment))
        }
        guard case .httpStatus(let response) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(response.statusCode == 403)
    }

    @Test("an endpoint that requires auth without a token fails typed before anything is sent")
    func eventsMissingToken() async throws {
        let script = EventStreamScript([])
        let service = HTTPNetworkService(transport: script, authService: InMemoryAuthService())
        await #expect(throws: NetworkError.self) {
            _ = try await Array(service.events(TestEndpoint(path: "/feed", requiresAuth: true), via: environment))
        }
        #expect(script.requests.isEmpty)
    }

    @Test("JSON Lines from an endpoint decode line by line with the endpoint's headers")
    func jsonLines() async throws {
        let transport = ScriptedStreamTransport([
            .init(statusCode: 200, chunks: [Array("{\"n\":1}\n{\"n\"".utf8), Array(":2}\r\n\n{\"n\":3}".utf8)])
        ])
        let service = HTTPNetworkService(transport: transport)
        let rows = try await Array(
            service.jsonLines(
                TestEndpoint(path: "/export", headers: ["Accept": "application/x-ndjson"]),
                via: environment, decoding: Row.self))
        #expect(rows == [Row(n: 1), Row(n: 2), Row(n: 3)])
        #expect(transport.requests.first?.headers["Accept"] == "application/x-ndjson")
    }

    @Test("a bad JSON line throws NetworkError.decoding naming the line number, with the line's bytes")
    func jsonLinesBadLine() async throws {
        let transport = ScriptedStreamTransport([.status(200, body: "{\"n\":1}\n\nnot json\n{\"n\":4}\n")])
        var received: [Row] = []
        let error = await #expect(throws: NetworkError.self) {
            for try await row in HTTPNetworkService(transport: transport).jsonLines(
                TestEndpoint(path: "/export"), via: environment,
                decoding: Row.self)
            {
                received.append(row)
            }
        }
        guard case .decoding(let underlying, let body) = error, case .invalidLine(let line, _)? = underlying as? JSONLinesError else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(line == 3)
        #expect(String(decoding: body, as: UTF8.self) == "not json")
        #expect(received == [Row(n: 1)])
    }

    @Test("a JSON line past maxLineBytes throws NetworkError.decoding with lineTooLong")
    func jsonLinesTooLong() async throws {
        let transport = ScriptedStreamTransport([.status(200, body: "{\"n\":1}\n{\"n\":22222222222}\n")])
        let error = await #expect(throws: NetworkError.self) {
            _ = try await Array(
                HTTPNetworkService(transport: transport).jsonLines(
                    TestEndpoint(path: "/export"), via: environment,
                    decoding: Row.self, maxLineBytes: 10))
        }
        guard case .decoding(let underlying, _) = error, case .lineTooLong(let line, let limit)? = underlying as? JSONLinesError else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(line == 2)
        #expect(limit == 10)
    }

    @Test("a JSON Lines endpoint answering a status it does not accept throws NetworkError.httpStatus")
    func jsonLinesStatus() async throws {
        let transport = ScriptedStreamTransport([.status(500, body: "oops")])
        let error = await #expect(throws: NetworkError.self) {
            _ = try await Array(
                HTTPNetworkService(transport: transport).jsonLines(
                    TestEndpoint(path: "/export"), via: environment,
                    decoding: Row.self))
        }
        guard case .httpStatus(let response) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(response.statusCode == 500)
    }
}
