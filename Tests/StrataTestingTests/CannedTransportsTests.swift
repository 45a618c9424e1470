#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataTesting
import Testing

private func request(_ method: HTTPMethod = .get, _ path: String) -> URLRequest {
    var request = URLRequest(url: URL(string: "https://api.example.com\(path)")!)
    request.httpMethod = method.rawValue
    return request
}

@Suite("CannedResponseTransport")
struct CannedResponseTransportTests {
    @Test("answers every request with the same response and the request's URL")
    func answers() async throws {
        let transport = CannedResponseTransport(string: "hi", statusCode: 201, headers: ["X-A": "1"])
        let response = try await transport.send(request(.post, "/a"))
        #expect(response.statusCode == 201)
        #expect(response.text == "hi")
        #expect(response.headers["x-a"] == "1")
        #expect(response.url?.path == "/a")
    }

    @Test("a JSON canned response is labelled application/json")
    func json() async throws {
        let response = try CannedResponse.json(["a": 1])
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(try JSONDecoder().decode([String: Int].self, from: response.body) == ["a": 1])
    }
}

@Suite("CannedRoutesTransport")
struct CannedRoutesTransportTests {
    @Test("the first matching route answers, by exact path and method")
    func firstMatchWins() async throws {
        let transport = CannedRoutesTransport(routes: [
            CannedRoute(
                pattern: RequestPattern(method: .post, path: "/todos"), response: CannedResponse(string: "created", statusCode: 201)),
            CannedRoute(pattern: RequestPattern(path: "/todos"), response: CannedResponse(string: "list")),
            CannedRoute(pattern: RequestPattern(path: "/todos"), response: CannedResponse(string: "never")),
        ])
        #expect(try await transport.send(request(.get, "/todos")).text == "list")
        #expect(try await transport.send(request(.post, "/todos")).statusCode == 201)
    }

    @Test("a regex must match the whole path")
    func wholePathRegex() async throws {
        let transport = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(pathRegex: "/users/[0-9]+"), response: CannedResponse(string: "user"))
        ])
        #expect(try await transport.send(request(.get, "/users/42")).text == "user")
        await #expect(throws: CannedRoutesError.self) { try await transport.send(request(.get, "/users/42/posts")) }
        await #expect(throws: CannedRoutesError.self) { try await transport.send(request(.get, "/users/42\n")) }
        await #expect(throws: CannedRoutesError.self) { try await transport.send(request(.get, "/v1/users/42")) }
    }

    @Test(
        "alternations and lazy quantifiers match when some alternative covers the whole path",
        arguments: ["/users|/users/[0-9]+", "/users/.*?", "(/v1)?/users/[0-9]+"])
    func wholePathAlternatives(pattern: String) async throws {
        let transport = CannedRoutesTransport(routes: [CannedRoute(pattern: RequestPattern(pathRegex: pattern), response: .status(200))])
        #expect(try await transport.send(request(.get, "/users/42")).statusCode == 200)
    }

    @Test("a sequence answers in order and then repeats its last response")
    func sequences() async throws {
        let transport = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(path: "/flaky"), responses: [.status(503), .status(502), CannedResponse(string: "ok")])
        ])
        var statuses: [Int] = []
        for _ in 0..<5 { statuses.append(try await transport.send(request(.get, "/flaky")).statusCode) }
        #expect(statuses == [503, 502, 200, 200, 200])
    }

    @Test("an error route throws its error")
    func errorRoute() async throws {
        let failure = TransportError(.connectionLost)
        let transport = CannedRoutesTransport(routes: [CannedRoute(pattern: RequestPattern(path: "/down"), error: failure)])
        await #expect {
            try await transport.send(request(.get, "/down"))
        } throws: { error in
            (error as? TransportError)?.kind == .connectionLost
        }
    }

    @Test("a closure route answers from the request")
    func closureRoute() async throws {
        let transport = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(path: "/echo")) { request in
                CannedResponse(string: request.headers["X-Echo"] ?? "")
            }
        ])
        var echo = request(.get, "/echo")
        echo.setValue("hello", forHTTPHeaderField: "X-Echo")
        #expect(try await transport.send(echo).text == "hello")
    }

    @Test("an unmatched request throws an error naming the method, the URL and the known routes")
    func unmatched() async throws {
        let transport = CannedRoutesTransport(routes: [
            CannedRoute(pattern: RequestPattern(method: .get, path: "/a"), response: CannedResponse(string: "")),
            CannedRoute(pattern: RequestPattern(pathRegex: "/b/.*"), response: CannedResponse(string: "")),
        ])
        do {
            _ = try await transport.send(request(.delete, "/c?x=1"))
            Issue.record("expected an error")
        } catch let error as CannedRoutesError {
            let text = error.description
            #expect(text.contains("DELETE https://api.example.com/c?x=1"))
            #expect(text.contains("GET /a"))
            #expect(text.contains("any ~/b/.*"))
        }
    }

    @Test("an invalid regex gives a clear error instead of a crash")
    func invalidRegex() async throws {
        let pattern = RequestPattern(pathRegex: "/users/[0-9")
        #expect(throws: CannedRoutesError.self) { try pattern.validate() }
        let transport = CannedRoutesTransport(routes: [CannedRoute(pattern: pattern, response: .status(200))])
        await #expect {
            try await transport.send(request(.get, "/users/1"))
        } throws: { error in
            guard case CannedRoutesError.invalidPattern(let text, _) = error else { return false }
            return text == "/users/[0-9" && "\(error)".contains("not a valid regular expression")
        }
    }

    @Test("an invalid regex is found when the transport is created, with a plain reason, even behind a matching route")
    func invalidRegexAtCreation() async throws {
        let routes = [
            CannedRoute(pattern: RequestPattern(path: "/a"), response: .status(200)),
            CannedRoute(pattern: RequestPattern(pathRegex: "/users/[0-9+"), response: .status(200)),
        ]
        #expect {
            _ = try CannedRoutesTransport.validated(routes: routes)
        } throws: { error in
            guard case CannedRoutesError.invalidPattern("/users/[0-9+", let reason) = error else { return false }
            return reason == "expected ']'" && !"\(error)".contains("NSCocoaErrorDomain")
        }
        // Created without validation, it refuses even the request the first route would answer.
        await #expect(throws: CannedRoutesError.self) {
            try await CannedRoutesTransport(routes: routes).send(request(.get, "/a"))
        }
        _ = try CannedRoutesTransport.validated(routes: Array(routes.prefix(1))) // The valid prefix is accepted.
    }

    @Test("ClosureTransport: .succeeding, .failing and .sequence answer in order, the last repeating, and record requests")
    func closureTransport() async throws {
        let always = ClosureTransport.succeeding(CannedResponse(string: "ok", statusCode: 201))
        #expect(try await always.send(request(.get, "/x")).statusCode == 201)
        await #expect(throws: TransportError.self) {
            try await ClosureTransport.failing(TransportError(.timedOut)).send(request(.get, "/x"))
        }
        let script = ClosureTransport.sequence([
            .failing(TransportError(.connectionLost)), .succeeding(.status(503)),
            .succeeding(CannedResponse(string: "done")),
        ])
        await #expect(throws: TransportError.self) { try await script.send(request(.get, "/1")) }
        #expect(try await script.send(request(.get, "/2")).statusCode == 503)
        #expect(try await script.send(request(.get, "/3")).text == "done")
        #expect(try await script.send(request(.get, "/4")).text == "done")
        #expect(await script.recordedRequests.map { $0.url.path } == ["/1", "/2", "/3", "/4"])
        let handled = ClosureTransport { request in
            await Task.yield() // the handler may suspend
            return HTTPResponse(statusCode: 200, body: Data((request.url.path).utf8))
        }
        let answer = try await handled.send(request(.get, "/echo"))
        #expect(answer.text == "/echo" && answer.url == URL(string: "https://api.example.com/echo"))
    }

    @Test("TestClock: sleeps return at once, move time to the deadline and are recorded; cancellation throws")
    func testClock() async throws {
        let clock = TestClock()
        let start = clock.now
        try await clock.sleep(for: .seconds(2))
        clock.advance(by: .milliseconds(500))
        try await clock.sleep(until: start.advanced(by: .seconds(1)), tolerance: nil) // already past
        #expect(start.duration(to: clock.now) == .milliseconds(2_500))
        #expect(clock.sleeps == [.seconds(2), .zero])
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test("RecordingObserver keeps every event with its request identifier, by type and by name")
    func recordingObserver() async throws {
        let recorder = RecordingObserver()
        _ = try await recorder.observing(CannedResponseTransport(string: "")).send(request(.get, "/a"))
        #expect(recorder.names == ["request.start", "request.response"])
        #expect(recorder.events(RequestEvent.self).count == 2)
        #expect(Set(recorder.all.map(\.requestID)).count == 1)
    }

    @Test("every request is recorded in order, matched or not")
    func recording() async throws {
        let transport = CannedRoutesTransport(routes: [CannedRoute(pattern: RequestPattern(path: "/a"), response: .status(200))])
        _ = try await transport.send(request(.get, "/a"))
        _ = try? await transport.send(request(.post, "/zzz"))
        let recorded = await transport.recordedRequests
        #expect(recorded.map { "\($0.method.rawValue) \($0.url.path)" } == ["GET /a", "POST /zzz"])
    }

    @Test("a cancelled task is not answered")
    func cancellation() async throws {
        let transport = CannedRoutesTransport(routes: [CannedRoute(pattern: RequestPattern(path: "/a"), response: .status(200))])
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(request(.get, "/a"))
        }
        await #expect(throws: CancellationError.self) { _ = try await task.value }
    }

    @Test("an enum endpoint works end to end through the service")
    func throughService() async throws {
        enum TodoAPI: EndpointProtocol {
            case list(page: Int)
            var path: String { "/todos" }
            var method: HTTPMethod { .get }
            var query: [URLQueryItem]? {
                switch self {
                case .list(let page): [URLQueryItem(name: "page", value: String(page))]
                }
            }
        }
        struct Todo: Decodable, Equatable { var title: String }
        let transport = CannedRoutesTransport(routes: [
            CannedRoute(
                pattern: RequestPattern(method: .get, path: "/v1/todos"), response: CannedResponse(string: #"[{"title":"write tests"}]"#))
        ])
        let service = HTTPNetworkService(transport: transport)
        let environment = DefaultAPIEnvironment(baseURL: URL(string: "https://api.example.com/v1")!)
        let todos: [Todo] = try await service.requestModels(to: TodoAPI.list(page: 2), via: environment)
        #expect(todos == [Todo(title: "write tests")])
        #expect(await transport.recordedRequests.first?.url.query == "page=2")
    }
}
