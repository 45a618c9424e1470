#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataTesting
import Testing

/// An endpoint whose every part is set by the test.
struct TestEndpoint: EndpointProtocol {
    var path: String
    var method: HTTPMethod = .get
    var query: [URLQueryItem]?
    var headers: [String: String] = [:]
    var body: RequestBody?
    var requiresAuth = false
    var timeout: Duration?
    var acceptedStatusCodes = Set(200..<300)
}

struct Payload: Codable, Hashable, Sendable {
    var name: String
}

@Suite("Building requests from endpoints")
struct RequestBuildingTests {
    let service = HTTPNetworkService(transport: neverCalledTransport())

    func request(
        _ endpoint: TestEndpoint, base: String = "https://api.example.com",
        headers: [String: String] = [:]
    ) async throws -> HTTPRequest {
        let environment = DefaultAPIEnvironment(baseURL: try #require(URL(string: base)), headers: headers)
        return try await service.makeRequest(for: endpoint, via: environment)
    }

    @Test(
        "the endpoint path is joined to the base path with exactly one slash",
        arguments: [
            ("https://api.example.com", "/users", "https://api.example.com/users"),
            ("https://api.example.com", "users", "https://api.example.com/users"),
            ("https://api.example.com/", "/users", "https://api.example.com/users"),
            ("https://api.example.com/v1", "/users", "https://api.example.com/v1/users"),
            ("https://api.example.com/v1", "users", "https://api.example.com/v1/users"),
            ("https://api.example.com/v1/", "/users", "https://api.example.com/v1/users"),
            ("https://api.example.com/v1/", "users/", "https://api.example.com/v1/users/"),
            ("https://api.example.com/v1", "", "https://api.example.com/v1"),
            ("https://api.example.com", "", "https://api.example.com/"),
            ("https://api.example.com/v1", "//evil.example/x", "https://api.example.com/v1/evil.example/x"),
        ])
    func pathJoining(base: String, path: String, expected: String) async throws {
        let built = try await request(TestEndpoint(path: path), base: base)
        #expect(built.url.absoluteString == expected)
    }

    @Test("query values keep +, &, =, spaces and non-ASCII through a round trip")
    func queryEncoding() async throws {
        let values = ["a+b", "x&y=z", "two words", "é", "100%", "/?#[]"]
        let items = values.enumerated().map { URLQueryItem(name: "k\($0.offset)", value: $0.element) }
        let built = try await request(TestEndpoint(path: "/search", query: items))
        let query = try #require(built.url.query(percentEncoded: true))
        #expect(query == "k0=a%2Bb&k1=x%26y%3Dz&k2=two%20words&k3=%C3%A9&k4=100%25&k5=%2F%3F%23%5B%5D")
        let decoded = try #require(URLComponents(string: "https://x/?" + query)?.queryItems)
        #expect(decoded.map(\.value) == values)
    }

    @Test("a query item without a value is sent as a bare name, after the base URL's own query")
    func queryMerging() async throws {
        let built = try await request(
            TestEndpoint(path: "/s", query: [URLQueryItem(name: "flag", value: nil)]),
            base: "https://api.example.com/v1?key=abc")
        #expect(built.url.absoluteString == "https://api.example.com/v1/s?key=abc&flag")
    }

    @Test("path characters that need it are percent-encoded; existing escapes are kept")
    func pathEncoding() async throws {
        let built = try await request(TestEndpoint(path: "/files/my file é.txt"))
        #expect(built.url.absoluteString == "https://api.example.com/files/my%20file%20%C3%A9.txt")
        let preEncoded = try await request(TestEndpoint(path: "/files/a%20b"))
        #expect(preEncoded.url.absoluteString == "https://api.example.com/files/a%20b")
    }

    @Test("sub-delimiters, ':', '@' and '/' stay literal in a path; '[', ']', '\"' and space do not")
    func pathDelimitersKept() async throws {
        let built = try await request(TestEndpoint(path: "/a!$&'()*+,;=:@b/c[d]\"e f"))
        #expect(built.url.absoluteString == "https://api.example.com/a!$&'()*+,;=:@b/c%5Bd%5D%22e%20f")
    }

    @Test(
        "a value encoded with PathSegment stays one segment, whatever it holds",
        arguments: [
            ("../admin", "..%2Fadmin"), ("..", "%2E%2E"), ("a/b?c#d", "a%2Fb%3Fc%23d"), ("100%41", "100%2541"), ("é x", "%C3%A9%20x"),
        ])
    func pathSegments(value: String, encoded: String) async throws {
        let built = try await request(TestEndpoint(path: "/files/\(PathSegment.encode(value))"))
        #expect(built.url.absoluteString == "https://api.example.com/files/\(encoded)")
    }

    @Test("a path containing ? or # is refused with advice to use query", arguments: ["/a?b=1", "/a#frag"])
    func pathWithQueryRefused(path: String) async throws {
        await #expect {
            try await request(TestEndpoint(path: path))
        } throws: { error in
            guard case NetworkError.invalidURL(let reason) = error else { return false }
            return reason.contains("query")
        }
    }

    @Test("a base URL that is not absolute http(s) is refused", arguments: ["ftp://example.com", "/relative", "mailto:a@b.c"])
    func badBaseURL(base: String) async throws {
        await #expect {
            try await request(TestEndpoint(path: "/x"), base: base)
        } throws: { error in
            if case NetworkError.invalidURL = error { return true }
            return false
        }
    }

    @Test("requests accept JSON unless the endpoint says otherwise")
    func acceptHeader() async throws {
        #expect(try await request(TestEndpoint(path: "/")).headers["Accept"] == "application/json")
        let custom = try await request(TestEndpoint(path: "/", headers: ["accept": "text/csv"]))
        #expect(custom.headers["Accept"] == "text/csv")
    }

    @Test("a JSON body is encoded and labelled application/json")
    func jsonBody() async throws {
        let built = try await request(TestEndpoint(path: "/", method: .post, body: .json(Payload(name: "a+b é"))))
        #expect(built.method.rawValue == "POST")
        #expect(built.headers["Content-Type"] == "application/json")
        #expect(
            try JSONDecoder().decode(Payload.self, from: try await #require(built.body).collect(upTo: 1 << 20)) == Payload(name: "a+b é"))
    }

    @Test("a form body is strictly percent-encoded and labelled as a form")
    func formBody() async throws {
        let built = try await request(
            TestEndpoint(
                path: "/", method: .post,
                body: .form([URLQueryItem(name: "q", value: "a+b c&d")])))
        #expect(built.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(try await built.body?.collect(upTo: 1 << 20) == Data("q=a%2Bb%20c%26d".utf8))
    }

    @Test("a raw body keeps its content type")
    func dataBody() async throws {
        let built = try await request(
            TestEndpoint(path: "/", method: .put, body: .data(Data([1, 2]), contentType: "application/octet-stream")))
        #expect(built.headers["Content-Type"] == "application/octet-stream")
        #expect(try await built.body?.collect(upTo: 1 << 20) == Data([1, 2]))
    }

    @Test("endpoint headers override environment headers")
    func headerPrecedence() async throws {
        let built = try await request(
            TestEndpoint(path: "/", headers: ["X-Client": "endpoint"]),
            headers: ["x-client": "environment", "X-Key": "k"])
        #expect(built.headers["X-Client"] == "endpoint")
        #expect(built.headers["X-Key"] == "k")
    }

    @Test("a header carrying CR/LF from the endpoint or the environment is refused")
    func headerInjection() async throws {
        for (endpointHeaders, environmentHeaders) in [(["X-A": "v\r\nX-B: 1"], [:]), ([:], ["X-A": "v\nX-B: 1"])] {
            await #expect {
                try await request(TestEndpoint(path: "/", headers: endpointHeaders), headers: environmentHeaders)
            } throws: { error in
                if case NetworkError.invalidHeader(.invalidValue(name: "X-A", byte: _)) = error { return true }
                return false
            }
        }
    }
}

/// A transport for tests that must not send anything: any request it sees is a test failure.
func neverCalledTransport() -> ClosureTransport {
    ClosureTransport { request in
        Issue.record("unexpected request \(request)")
        return HTTPResponse(statusCode: 500)
    }
}
