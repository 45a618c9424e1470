import Foundation
import Strata
@testable import StrataPinning
import Testing
import TestServer
import TLSTestServer

/// `stream` over HTTP/2 works today by buffering (the response read whole, then handed over;
/// a file body collected before it is sent), until HTTP/2 streams bodies itself.
@Suite("PinningTransport.stream over HTTP/2 (buffered for now, nginx)",
       .enabled(if: NginxServer.isInstalled, Comment(rawValue: NginxServer.missing)))
struct PinningStreamHTTP2Tests {
    @Test("stream over HTTP/2 hands the head and the whole body to consume, and a file body is sent")
    func streamOverHTTP2() async throws {
        let payload = Payload.bytes(1 << 20, seed: 3)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-h2-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("upload.bin")
        try payload.write(to: file)
        let server = try await NginxServer.start(directives: """
            location /big.bin { }
            location /uploads/ { alias \(directory.path)/; dav_methods PUT; client_max_body_size 0; }
            """, files: ["big.bin": payload])
        defer { server.stop() }
        let events = PinningEventLog()
        let transport = events.observing(try Pinning.transport())
        let (status, body) = try await transport.stream(Pinning.get(server.url("/big.bin"))) { head, body in
            (head.statusCode, try await body.collect(upTo: 2 << 20))
        }
        #expect(status == 200)
        #expect(body == payload)
        let upload = try await transport.send(HTTPRequest(method: .put, url: server.url("/uploads/copy.bin"),
                                                          body: try HTTPBody(contentsOf: file)))
        #expect(upload.statusCode == 201)
        #expect(try Data(contentsOf: directory.appendingPathComponent("copy.bin")) == payload)
        #expect(events.http2Responses == 2)
    }
}
