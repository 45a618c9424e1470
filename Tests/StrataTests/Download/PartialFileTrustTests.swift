#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import Testing
import TestServer

@testable import Strata

@Suite("download(resumable: true) trusts only a partial file and sidecar of its own, and one download at a time", .serialized)
struct PartialFileTrustTests {
    let server: LoopbackHTTPServer
    let service = HTTPNetworkService(transport: URLSessionTransport(requestTimeout: .seconds(30)))
    let directory: URL
    let target: URL
    let version1 = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    let version2 = Data((0..<90_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
    /// What someone else planted: not a prefix of any version.
    let planted = Data(repeating: 0xAA, count: 40_000)

    init() throws {
        server = try LoopbackHTTPServer()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-trust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        target = directory.appendingPathComponent("artifact.bin")
    }

    var environment: DefaultAPIEnvironment { DefaultAPIEnvironment(baseURL: server.baseURL) }
    var partPath: String { target.path + ".part" }

    func download(_ endpoint: TestEndpoint = TestEndpoint(path: "/artifact")) async throws -> HTTPResponseHead {
        try await service.download(endpoint, via: environment, to: target, resumable: true)
    }

    /// A sidecar naming the origin's real, public validator, as anyone could write it.
    func rememberV1() async throws {
        try await PartialDownload(target: target).remember("\"v1\"", for: server.url("/artifact"))
    }

    @Test("a symbolic link at <target>.part is removed, never followed: its target is unchanged")
    func symlinkIsNotFollowed() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let victim = directory.appendingPathComponent("victim")
        try planted.write(to: victim)
        #expect(symlink(victim.path, partPath) == 0)
        try await rememberV1()
        server.route("/artifact") { [version1] in rangeAnswer($0, content: version1, etag: "\"v1\"") }

        _ = try await download()

        #expect(try Data(contentsOf: victim) == planted)
        #expect(try Data(contentsOf: target) == version1)
        #expect(server.requests.map { $0.header("Range") } == [nil])
    }

    @Test("a <target>.part with a second hard link is discarded, and the download starts from byte 0")
    func hardLinkedPartIsDiscarded() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let other = directory.appendingPathComponent("other")
        try planted.write(to: other)
        #expect(link(other.path, partPath) == 0)
        try await rememberV1()
        server.route("/artifact") { [version1] in rangeAnswer($0, content: version1, etag: "\"v1\"") }

        _ = try await download()

        #expect(try Data(contentsOf: other) == planted)
        #expect(try Data(contentsOf: target) == version1)
        #expect(server.requests.map { $0.header("Range") } == [nil])
    }

    @Test("a sidecar owned by another user is not trusted: the planted bytes are not continued")
    func foreignSidecarIsIgnored() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try planted.write(to: URL(fileURLWithPath: partPath))
        try await rememberV1()
        // Only root can give a file away; elsewhere the owner check cannot be staged.
        guard geteuid() == 0 else { return }
        #expect(chown(target.path + ".part.json", 65534, 65534) == 0)
        server.route("/artifact") { [version1] in rangeAnswer($0, content: version1, etag: "\"v1\"") }

        _ = try await download()

        #expect(try Data(contentsOf: target) == version1)
        #expect(server.requests.map { $0.header("Range") } == [nil])
    }

    @Test("a second download to the same target while the first holds <target>.part fails at once, saying why")
    func concurrentDownloadIsRefused() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try await PartialDownload(target: target).open()

        let error = await #expect(throws: NetworkError.self) { try await download() }

        guard case .cannotWriteFile(let path, let reason)? = error else {
            Issue.record("expected cannotWriteFile, got \(String(describing: error))")
            return
        }
        #expect(path == target.path)
        #expect(reason.contains("another download to \(target.path) is in progress"))
        #expect(server.requestCount == 0)
        withExtendedLifetime(first) {}
    }

    @Test("a 200 of a new version that drops leaves only the new version's bytes under its validator, and they resume")
    func changedVersionThatDropsResumesItself() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        // Weakly: a strong capture would make the server and its routes a cycle that never ends.
        server.route("/artifact") { [weak server, version1, version2] request in
            switch server?.requestCount ?? 0 {
            case 1: return cutShort(version1, after: 40_000, etag: "\"v1\"")
            case 2: return cutShort(version2, after: 30_000, etag: "\"v2\"")
            default: return rangeAnswer(request, content: version2, etag: "\"v2\"")
            }
        }
        await #expect(throws: NetworkError.self) { try await download() }
        await #expect(throws: NetworkError.self) { try await download() }
        #expect(try Data(contentsOf: URL(fileURLWithPath: partPath)) == version2.prefix(30_000))

        _ = try await download()

        #expect(try Data(contentsOf: target) == version2)
        #expect(server.requests.last?.header("Range") == "bytes=30000-")
        #expect(server.requests.last?.header("If-Range") == "\"v2\"")
    }

    @Test("a resumable download refused before any byte leaves no empty partial file behind")
    func refusedLeavesNothing() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        server.route("/artifact") { _ in .init(status: 404, body: Data("gone".utf8)) }

        await #expect(throws: NetworkError.self) { try await download() }

        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
