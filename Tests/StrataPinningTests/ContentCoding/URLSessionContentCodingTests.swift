#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
@testable import StrataPinning
import Testing
import TestServer

/// What `URLSessionTransport` (libcurl underneath) does with compressed responses on Linux, pinned
/// down so the compression article's comparison with the pinned path stays true.
@Suite("URLSessionTransport and content coding (libcurl decodes)")
struct URLSessionContentCodingTests {
    static func path(_ name: String) -> String { "/" + name.replacingOccurrences(of: " ", with: "-") }

    @Test("libcurl offers gzip and deflate and decodes every coding the pinned path does; the coded headers are removed")
    func decodes() async throws {
        let server = try LoopbackHTTPServer()
        for form in CodingFixtures.allForms {
            server.route(
                Self.path(form.name),
                response: .init(
                    headers: [("Content-Encoding", form.coding.rawValue)],
                    body: Data(form.bytes)))
        }
        let transport = URLSessionTransport()
        for form in CodingFixtures.allForms {
            let response = try await transport.send(HTTPRequest(url: server.url(Self.path(form.name))))
            #expect(Array(response.body) == CodingFixtures.json, "\(form.name)")
            #expect(response.headers["Content-Encoding"] == nil)
            #expect(response.headers["Content-Length"] == nil)
            let streamed = try await transport.stream(HTTPRequest(url: server.url(Self.path(form.name)))) { head, body in
                #expect(head.headers["Content-Encoding"] == nil)
                return Array(try await body.collect(upTo: 1 << 20))
            }
            #expect(streamed == CodingFixtures.json, "\(form.name) streamed")
        }
        let offered = try #require(server.requests.first?.header("Accept-Encoding"))
        #expect(offered.contains("gzip") && offered.contains("deflate"), "\(offered)")
    }

    @Test("a request's own Accept-Encoding is sent, but libcurl decodes the body anyway")
    func callersAcceptEncodingStillDecoded() async throws {
        let server = try LoopbackHTTPServer()
        server.route("/gz", response: .init(headers: [("Content-Encoding", "gzip")], body: Data(CodingFixtures.coded(.gzip))))
        let response = try await URLSessionTransport().send(HTTPRequest(url: server.url("/gz"), headers: ["Accept-Encoding": "gzip"]))
        #expect(server.requests.first?.header("Accept-Encoding") == "gzip")
        #expect(Array(response.body) == CodingFixtures.json)
    }

    @Test("a coding libcurl does not know fails the request rather than arrive undecoded")
    func unknownCoding() async throws {
        let server = try LoopbackHTTPServer()
        server.route("/lzw", response: .init(headers: [("Content-Encoding", "compress")], text: "not really compressed"))
        await #expect(throws: TransportError.self) { try await URLSessionTransport().send(HTTPRequest(url: server.url("/lzw"))) }
    }
}
