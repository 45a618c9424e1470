import Foundation
import Strata
@testable import StrataPinning
import Testing
import TestServer
import TLSTestServer

/// Content coding against a real nginx (Debian `nginx-light`): `gzip on`, `gzip_static on`, and
/// pre-encoded deflate, br and zstd files, over pinned HTTP/1.1, pinned HTTP/2 and URLSession,
/// each decoded to the same bytes. Skipped, with the reason, where nginx is not installed.
@Suite(
    "Content coding against nginx: the same JSON over pinned HTTP/1.1, pinned HTTP/2 and URLSession",
    .enabled(if: NginxServer.isInstalled, Comment(rawValue: NginxServer.missing)))
struct NginxContentCodingTests {
    /// `gzip on` for JSON of any size, `gzip_static` under /static/ (only the .gz is there, so a
    /// 200 proves it was served), and each committed or made coded form with its Content-Encoding.
    static let directives = """
        location = /todos.json { gzip on; gzip_types application/json; gzip_min_length 0; default_type application/json; }
        location /static/ { gzip_static on; default_type application/json; }
        location = /deflate { default_type application/json; add_header Content-Encoding deflate; alias $root/todos.json.zz; }
        location = /br { default_type application/json; add_header Content-Encoding br; alias $root/todos.json.br; }
        location = /zstd { default_type application/json; add_header Content-Encoding zstd; alias $root/todos.json.zst; }
        """

    static func files() -> [String: Data] {
        [
            "todos.json": Data(CodingFixtures.json),
            "static/todos.json.gz": Data(CodingFixtures.coded(.gzip)),
            "todos.json.zz": Data(CodingFixtures.coded(.deflate)),
            "todos.json.br": Data(CodingFixtures.coded(.brotli)),
            "todos.json.zst": Data(CodingFixtures.coded(.zstd)),
        ]
    }

    /// The paths served in a coding this build decodes.
    static var paths: [String] {
        ["/todos.json", "/static/todos.json", "/deflate"]
            + (ContentCoding.supported.contains(.brotli) ? ["/br"] : [])
            + (ContentCoding.supported.contains(.zstd) ? ["/zstd"] : [])
    }

    /// The body bytes nginx logged for each request (combined format: status, then bytes).
    static func bodyBytesLogged(_ server: NginxServer) -> [Int] {
        server.accessLog.compactMap { line in
            let afterRequest = line.split(separator: "\"", omittingEmptySubsequences: false).dropFirst(2).first ?? ""
            return afterRequest.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
    }

    @Test("pinned HTTP/1.1 and HTTP/2 get the decoded JSON from gzip on, gzip_static and pre-encoded files, send and stream")
    func pinned() async throws {
        for http2 in [false, true] {
            let server = try await NginxServer.start(http2: http2, directives: Self.directives, files: Self.files())
            defer { server.stop() }
            let events = PinningEventLog()
            let transport = events.observing(try Pinning.transport())
            for path in Self.paths {
                let response = try await transport.send(Pinning.get(server.url(path)))
                #expect(response.statusCode == 200, "\(path) over \(http2 ? "h2" : "http/1.1")")
                #expect(Array(response.body) == CodingFixtures.json, "\(path) over \(http2 ? "h2" : "http/1.1")")
                #expect(response.headers["Content-Encoding"] == nil)
                let streamed = try await transport.stream(Pinning.get(server.url(path))) { head, body in
                    #expect(head.headers["Content-Encoding"] == nil)
                    var bytes: [UInt8] = []
                    for try await chunk in body { bytes += chunk }
                    return bytes
                }
                #expect(streamed == CodingFixtures.json, "\(path) streamed over \(http2 ? "h2" : "http/1.1")")
            }
            #expect(http2 ? events.http2Responses > 0 && events.http1Responses == 0 : events.http2Responses == 0)
            // nginx compressed: every body on the wire was a fraction of the JSON.
            let logged = Self.bodyBytesLogged(server)
            #expect(logged.count == Self.paths.count * 2)
            #expect(logged.allSatisfy { $0 > 0 && $0 < CodingFixtures.json.count / 4 }, "\(logged)")
        }
    }

    @Test("URLSession gets the same JSON from gzip on and gzip_static")
    func urlSession() async throws {
        let server = try await NginxServer.start(tls: false, directives: Self.directives, files: Self.files())
        defer { server.stop() }
        let transport = URLSessionTransport()
        for path in Self.paths {
            let response = try await transport.send(HTTPRequest(url: server.url(path)))
            #expect(Array(response.body) == CodingFixtures.json, "\(path)")
            #expect(response.headers["Content-Encoding"] == nil)
        }
        #expect(Self.bodyBytesLogged(server).allSatisfy { $0 < CodingFixtures.json.count / 4 })
    }

    @Test("a caller's Accept-Encoding: gzip gets nginx's gzip bytes untouched, over HTTP/1.1 and HTTP/2")
    func rawBytes() async throws {
        for http2 in [false, true] {
            let server = try await NginxServer.start(http2: http2, directives: Self.directives, files: Self.files())
            defer { server.stop() }
            let transport = try Pinning.transport()
            let response = try await transport.send(Pinning.get(server.url("/static/todos.json"), headers: ["Accept-Encoding": "gzip"]))
            #expect(response.headers["Content-Encoding"] == "gzip")
            #expect(Array(response.body) == CodingFixtures.coded(.gzip))
        }
    }

    @Test("ResponseBodyLimit lowers the pinned buffered limit for one call over HTTP/2, on decoded bytes")
    func lowerLimitOverHTTP2() async throws {
        let server = try await NginxServer.start(http2: true, directives: Self.directives, files: Self.files())
        defer { server.stop() }
        let transport = try Pinning.transport()
        let error = await Pinning.error {
            try await ResponseBodyLimit.withMaxBytes(100_000) { try await transport.send(Pinning.get(server.url("/todos.json"))) }
        }
        let failure = try #require(error as? TransportError)
        #expect(failure.kind == .invalidResponse)
        #expect(failure.message.contains("ResponseBodyLimit"), "\(failure.message)")
    }

    @Test("ResponseBodyLimit raises the pinned buffered limit for one call over HTTP/2: the body streams, so no connection limit caps it")
    func raisedLimitOverHTTP2() async throws {
        let server = try await NginxServer.start(http2: true, directives: Self.directives, files: Self.files())
        defer { server.stop() }
        var configuration = PinningTransport.Configuration(requestTimeout: .seconds(10))
        configuration.limits.maxResponseBodyBytes = 10_000
        let transport = try Pinning.transport(configuration: configuration)
        let refused = await Pinning.error { try await transport.send(Pinning.get(server.url("/todos.json"))) }
        #expect((refused as? TransportError)?.kind == .invalidResponse, "the configured limit holds without a scope")
        let response = try await ResponseBodyLimit.withMaxBytes(CodingFixtures.json.count) {
            try await transport.send(Pinning.get(server.url("/todos.json")))
        }
        #expect(Array(response.body) == CodingFixtures.json)
    }
}
