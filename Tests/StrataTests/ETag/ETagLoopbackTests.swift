#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import Testing
import TestServer

@Suite("ETagTransport against the loopback server through URLSessionTransport")
struct ETagLoopbackTests {
    let server: LoopbackHTTPServer
    let notModifiedCount = Counter()
    let body = String(repeating: "0123456789", count: 1_000)

    init() throws {
        server = try LoopbackHTTPServer()
        let body = body
        let notModified = notModifiedCount
        server.route("/document", method: "GET") { request in
            if request.header("If-None-Match") == "W/\"doc-1\"" || request.header("If-None-Match") == "\"doc-1\"" {
                notModified.increment()
                return .init(status: 304, headers: [("ETag", "\"doc-1\""), ("Cache-Control", "max-age=0")])
            }
            return .init(status: 200, headers: [("ETag", "\"doc-1\""), ("Content-Type", "text/plain")], text: body)
        }
    }

    @Test("the second GET of an unchanged resource is answered 304 and the caller still gets the full body")
    func secondGetTransfersNoBody() async throws {
        let transport = ETagTransport(inner: URLSessionTransport(requestTimeout: .seconds(30)))
        let first = try await transport.send(URLRequest(url: server.url("/document")))
        let second = try await transport.send(URLRequest(url: server.url("/document")))

        #expect(first.source == .network && first.text == body)
        #expect(second.statusCode == 200 && second.source == .revalidated && second.text == body)
        #expect(second.headers["Cache-Control"] == "max-age=0")
        #expect(server.requests.map { $0.header("If-None-Match") } == [nil, "\"doc-1\""])
        #expect(notModifiedCount.value == 1)
    }

    @Test("with a FileETagStore, a restarted client's first GET is already a 304")
    func fileStoreAcrossRestart() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let before = ETagTransport(
            inner: URLSessionTransport(requestTimeout: .seconds(30)),
            store: try FileETagStore(directory: directory.storeURL))
        _ = try await before.send(URLRequest(url: server.url("/document")))

        let after = ETagTransport(
            inner: URLSessionTransport(requestTimeout: .seconds(30)),
            store: try FileETagStore(directory: directory.storeURL))
        let response = try await after.send(URLRequest(url: server.url("/document")))
        #expect(response.source == .revalidated && response.text == body)
        #expect(notModifiedCount.value == 1)
    }
}
