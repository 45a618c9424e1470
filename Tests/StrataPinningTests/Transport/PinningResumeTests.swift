import Foundation
import StrataPinning
import Testing
import TestServer
import TLSTestServer

@testable import Strata

@Suite("PinningTransport carries a resumed download's Range and If-Range untouched (TLS loopback)")
struct PinningResumeTests {
    @Test("RFC 9110 §14.2: a resumable download over a pinned host sends Range and If-Range and appends the 206")
    func resumesOverPinnedHost() async throws {
        let content = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 11) })
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/artifact") { request in
            guard request.header("Range") == "bytes=20000-", request.header("If-Range") == "\"v1\"" else {
                return .init(headers: [("ETag", "\"v1\"")], body: content)
            }
            return .init(
                status: 206, headers: [("ETag", "\"v1\""), ("Content-Range", "bytes 20000-49999/50000")],
                body: content.suffix(from: 20_000))
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-pinned-resume-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("artifact.bin")
        try content.prefix(20_000).write(to: URL(fileURLWithPath: target.path + ".part"))
        try await PartialDownload(target: target).remember("\"v1\"", for: server.url("/artifact"))
        let service = HTTPNetworkService(transport: try Pinning.transport())

        let head = try await service.download(
            ArtifactEndpoint(), via: DefaultAPIEnvironment(baseURL: server.url("")), to: target, resumable: true)

        #expect(head.statusCode == 206)
        #expect(try Data(contentsOf: target) == content)
        let sent = try #require(server.http.requests.first)
        #expect(sent.header("Range") == "bytes=20000-")
        #expect(sent.header("If-Range") == "\"v1\"")
        #expect(sent.header("Accept-Encoding") == "identity")
    }
}

private struct ArtifactEndpoint: EndpointProtocol {
    var path: String { "/artifact" }
    var method: HTTPMethod { .get }
}
