#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import Testing

@Suite("HTTPRequest and its URLRequest bridges")
struct HTTPRequestTests {
    let url = URL(string: "https://api.example.com/v1/items?page=2")!

    @Test("a URLRequest's method, URL, headers and body come across")
    func fromURLRequest() async throws {
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = "PUT"
        urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        urlRequest.setValue("Bearer t", forHTTPHeaderField: "Authorization")
        urlRequest.httpBody = Data("{}".utf8)

        let request = try HTTPRequest(urlRequest)
        #expect(request.method == .put)
        #expect(request.url == url)
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.headers["Authorization"] == "Bearer t")
        #expect(request.body?.isReplayable == true)
        #expect(try await request.body?.collect(upTo: 10) == Data("{}".utf8))
        #expect(request.isReplayable)
    }

    @Test("a URLRequest without a method is a GET without a body")
    func defaults() throws {
        let request = try HTTPRequest(URLRequest(url: url))
        #expect(request.method == .get)
        #expect(request.body == nil)
        #expect(request.isReplayable)
    }

    @Test("an httpBodyStream becomes a single-pass body of the declared Content-Length")
    func bodyStream() async throws {
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = "POST"
        urlRequest.httpBodyStream = InputStream(data: Data("streamed".utf8))
        urlRequest.setValue("8", forHTTPHeaderField: "Content-Length")

        let request = try HTTPRequest(urlRequest)
        #expect(request.body?.length == 8)
        #expect(request.body?.isReplayable == false)
        #expect(!request.isReplayable)
        #expect(try await request.body?.collect(upTo: 100) == Data("streamed".utf8))
        await #expect(throws: HTTPBodyError.alreadyIterated) { try await request.body?.collect(upTo: 100) }
    }

    @Test(
        "a URL that is not absolute http or https is a typed invalidRequest",
        arguments: ["ftp://example.com/a", "file:///etc/passwd", "/relative/path", "mailto:a@example.com"])
    func refusedURL(text: String) throws {
        let urlRequest = URLRequest(url: URL(string: text)!)
        let error = try #require(throws: TransportError.self) { try HTTPRequest(urlRequest) }
        #expect(error.kind == .invalidRequest)
        #expect(error.message.contains("http or https"))
    }

    @Test("back to a URLRequest: method, URL, every header and an in-memory body")
    func toURLRequest() {
        var headers: HTTPHeaders = ["Accept": "application/json"]
        headers.add(name: "X-Trace", value: "1")
        let request = HTTPRequest(method: .post, url: url, headers: headers, body: HTTPBody("x=1"))
        let urlRequest = request.urlRequest
        #expect(urlRequest.httpMethod == "POST")
        #expect(urlRequest.url == url)
        #expect(urlRequest.value(forHTTPHeaderField: "accept") == "application/json")
        #expect(urlRequest.value(forHTTPHeaderField: "X-Trace") == "1")
        #expect(urlRequest.httpBody == Data("x=1".utf8))
    }

    @Test("a file body becomes a stream of the file, not bytes in memory")
    func fileToURLRequest() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("strata-req-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("file".utf8).write(to: file)
        let request = HTTPRequest(method: .put, url: url, body: try HTTPBody(contentsOf: file))
        #expect(request.urlRequest.httpBody == nil)
        #expect(request.urlRequest.httpBodyStream != nil)
    }
}
