import Foundation
import Testing
import TestServer

@testable import Strata

/// An origin that serves `content` under `etag` and honours `Range: bytes=N-` with `If-Range`
/// as RFC 9110 §14.2 and §13.1.5 say.
func rangeAnswer(_ request: LoopbackHTTPServer.Request, content: Data, etag: String) -> LoopbackHTTPServer.Response {
    guard let range = request.header("Range"), request.header("If-Range") == etag,
        range.hasPrefix("bytes="), range.hasSuffix("-"), let start = Int(range.dropFirst(6).dropLast())
    else { return .init(headers: [("ETag", etag)], body: content) }
    guard start < content.count else {
        return .init(status: 416, headers: [("Content-Range", "bytes */\(content.count)")])
    }
    return .init(
        status: 206, headers: [("ETag", etag), ("Content-Range", "bytes \(start)-\(content.count - 1)/\(content.count)")],
        body: content.suffix(from: start))
}

/// A head that promises `content` whole, and the first `sent` bytes of it before the connection closes.
func cutShort(_ content: Data, after sent: Int, etag: String) -> LoopbackHTTPServer.Response {
    .raw(Data("HTTP/1.1 200 OK\r\nETag: \(etag)\r\nContent-Length: \(content.count)\r\n\r\n".utf8) + content.prefix(sent))
}

@Suite("HTTPNetworkService.download(resumable: true) through URLSessionTransport and a loopback origin", .serialized)
struct ResumableDownloadLoopbackTests {
    let server: LoopbackHTTPServer
    let service = HTTPNetworkService(transport: URLSessionTransport(requestTimeout: .seconds(30)))
    let directory: URL
    let target: URL
    let version1 = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    let version2 = Data((0..<90_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })

    init() throws {
        server = try LoopbackHTTPServer()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-resume-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        target = directory.appendingPathComponent("artifact.bin")
    }

    var environment: DefaultAPIEnvironment { DefaultAPIEnvironment(baseURL: server.baseURL) }
    var entries: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted() }

    func download() async throws -> HTTPResponseHead {
        try await service.download(TestEndpoint(path: "/artifact"), via: environment, to: target, resumable: true)
    }

    /// Routes `/artifact` to `first` for the first request and to `next` after it (the server
    /// takes the first route that matches, so a route cannot be replaced).
    func script(_ first: LoopbackHTTPServer.Response, then next: @escaping LoopbackHTTPServer.Handler) {
        // Weakly: the server keeps its routes, so a strong capture would keep it (and every body
        // its routes hold) alive for ever, a cycle the leak checker reports.
        server.route("/artifact") { [weak server] request in server?.requestCount == 1 ? first : next(request) }
    }

    /// Runs a first download that the origin cuts short, and returns the bytes it left.
    func interrupted(serving content: Data) async throws -> Int {
        await #expect(throws: NetworkError.self) { try await download() }
        #expect(entries == ["artifact.bin.part", "artifact.bin.part.json"])
        let held = try Data(contentsOf: URL(fileURLWithPath: target.path + ".part"))
        #expect(held == content.prefix(held.count))
        return held.count
    }

    @Test("RFC 9110 §14.2, §13.1.5: an interrupted download resumes with Range and If-Range, and the 206 is appended")
    func resumes() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        script(cutShort(version1, after: 40_000, etag: "\"v1\"")) { [version1] in
            rangeAnswer($0, content: version1, etag: "\"v1\"")
        }
        let held = try await interrupted(serving: version1)

        let head = try await download()

        #expect(head.statusCode == 206)
        #expect(try Data(contentsOf: target) == version1)
        #expect(entries == ["artifact.bin"])
        let resumed = try #require(server.requests.last)
        #expect(resumed.header("Range") == "bytes=\(held)-")
        #expect(resumed.header("If-Range") == "\"v1\"")
        #expect(resumed.header("Accept-Encoding") == "identity")
    }

    @Test("a resumed transfer that drops too keeps what it appended, and the third call continues from there")
    func resumesTwice() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        server.route("/artifact") { [weak server, version1] request in
            let count = server?.requestCount ?? 0
            if count == 1 { return cutShort(version1, after: 40_000, etag: "\"v1\"") }
            guard count == 2, let range = request.header("Range") else {
                return rangeAnswer(request, content: version1, etag: "\"v1\"")
            }
            // The second answer continues from the bytes held but stops 10,000 bytes later.
            let start = Int(range.dropFirst(6).dropLast())!
            return .raw(
                Data(
                    ("HTTP/1.1 206 Partial Content\r\nETag: \"v1\"\r\nContent-Range: bytes \(start)-99999/100000\r\n"
                        + "Content-Length: \(100_000 - start)\r\n\r\n").utf8) + version1[start..<start + 10_000])
        }
        _ = try await interrupted(serving: version1)
        await #expect(throws: NetworkError.self) { try await download() }
        let held = try Data(contentsOf: URL(fileURLWithPath: target.path + ".part"))
        #expect(held.count > 40_000)
        #expect(held == version1.prefix(held.count))

        _ = try await download()

        #expect(try Data(contentsOf: target) == version1)
        #expect(server.requests.last?.header("Range") == "bytes=\(held.count)-")
    }

    @Test("RFC 9110 §13.1.5: when the validator changed, the 200 replaces the partial bytes instead of joining them")
    func changedValidatorRestarts() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        script(cutShort(version1, after: 40_000, etag: "\"v1\"")) { [version2] in
            rangeAnswer($0, content: version2, etag: "\"v2\"")
        }
        _ = try await interrupted(serving: version1)

        let head = try await download()

        #expect(head.statusCode == 200)
        #expect(try Data(contentsOf: target) == version2)
        #expect(entries == ["artifact.bin"])
        #expect(server.requests.last?.header("If-Range") == "\"v1\"")
    }

    @Test("RFC 9110 §15.5.17: a 416 saying the partial file is the whole representation completes it without a body")
    func alreadyComplete() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try version1.write(to: URL(fileURLWithPath: target.path + ".part"))
        try await PartialDownload(target: target).remember("\"v1\"", for: server.url("/artifact"))
        server.route("/artifact") { [version1] in rangeAnswer($0, content: version1, etag: "\"v1\"") }

        let head = try await download()

        #expect(head.statusCode == 416)
        #expect(try Data(contentsOf: target) == version1)
        #expect(entries == ["artifact.bin"])
        #expect(server.requestCount == 1)
    }

    @Test("a 416 for another length drops the partial file and downloads the whole, once, without Range")
    func unsatisfiableStartsOver() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try (version2 + Data(count: 20_000)).write(to: URL(fileURLWithPath: target.path + ".part"))
        try await PartialDownload(target: target).remember("\"v2\"", for: server.url("/artifact"))
        server.route("/artifact") { [version2] in rangeAnswer($0, content: version2, etag: "\"v2\"") }

        let head = try await download()

        #expect(head.statusCode == 200)
        #expect(try Data(contentsOf: target) == version2)
        #expect(server.requests.map { $0.header("Range") } == ["bytes=110000-", nil])
    }

    @Test("a 206 that starts elsewhere is invalidPartialContent, and nothing partial or corrupt is left")
    func mismatchedRange() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let wrong = LoopbackHTTPServer.Response(
            status: 206, headers: [("ETag", "\"v1\""), ("Content-Range", "bytes 0-99999/100000")], body: version1)
        script(cutShort(version1, after: 40_000, etag: "\"v1\"")) { _ in wrong }
        _ = try await interrupted(serving: version1)

        let error = await #expect(throws: NetworkError.self) { try await download() }

        guard case .invalidPartialContent(let path, let reason)? = error else {
            Issue.record("expected invalidPartialContent, got \(String(describing: error))")
            return
        }
        #expect(path == target.path)
        #expect(reason.contains("starts at byte 0"))
        #expect(entries.isEmpty)
    }

    @Test("RFC 9111 §3.4: under an ETagTransport holding a fresh copy, the resumed Range request still reaches the origin")
    func rangeBypassesTheCache() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        server.route("/artifact") { [version1] request in
            var response = rangeAnswer(request, content: version1, etag: "\"v1\"")
            response.headers.append(("Cache-Control", "max-age=600"))
            return response
        }
        let cached = HTTPNetworkService(
            transport: ETagTransport(inner: URLSessionTransport(requestTimeout: .seconds(30)), store: InMemoryETagStore()))
        _ = try await cached.response(to: TestEndpoint(path: "/artifact"), via: environment) // stored, fresh for 10 minutes
        try version1.prefix(30_000).write(to: URL(fileURLWithPath: target.path + ".part"))
        try await PartialDownload(target: target).remember("\"v1\"", for: server.url("/artifact"))

        let head = try await cached.download(TestEndpoint(path: "/artifact"), via: environment, to: target, resumable: true)

        #expect(head.statusCode == 206)
        #expect(try Data(contentsOf: target) == version1)
        #expect(server.requestCount == 2)
        #expect(server.requests.last?.header("Range") == "bytes=30000-")
        #expect(server.requests.last?.header("If-None-Match") == nil)
    }

    @Test("without a strong validator, a failed download leaves nothing and the next one starts over without Range")
    func weakValidatorIsNotResumed() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let whole = LoopbackHTTPServer.Response(headers: [("ETag", "W/\"v1\"")], body: version1)
        script(cutShort(version1, after: 40_000, etag: "W/\"v1\"")) { _ in whole }
        await #expect(throws: NetworkError.self) { try await download() }
        #expect(entries.isEmpty)

        _ = try await download()

        #expect(try Data(contentsOf: target) == version1)
        #expect(server.requests.last?.header("Range") == nil)
    }

    @Test("a resumed request asks for identity even when the endpoint asks for gzip: ranges count coded bytes")
    func identityOverridesEndpoint() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try version1.prefix(30_000).write(to: URL(fileURLWithPath: target.path + ".part"))
        try await PartialDownload(target: target).remember("\"v1\"", for: server.url("/artifact"))
        server.route("/artifact") { [version1] in rangeAnswer($0, content: version1, etag: "\"v1\"") }

        _ = try await service.download(
            TestEndpoint(path: "/artifact", headers: ["Accept-Encoding": "gzip"]), via: environment, to: target, resumable: true)

        #expect(server.requests.last?.header("Accept-Encoding") == "identity")
        #expect(try Data(contentsOf: target) == version1)
    }

    @Test("a 206 completes a resume even for an endpoint that accepts only 200")
    func partialContentIsTheTransportsBusiness() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try version1.prefix(30_000).write(to: URL(fileURLWithPath: target.path + ".part"))
        try await PartialDownload(target: target).remember("\"v1\"", for: server.url("/artifact"))
        server.route("/artifact") { [version1] in rangeAnswer($0, content: version1, etag: "\"v1\"") }

        let head = try await service.download(
            TestEndpoint(path: "/artifact", acceptedStatusCodes: [200]), via: environment, to: target, resumable: true)

        #expect(head.statusCode == 206)
        #expect(try Data(contentsOf: target) == version1)
    }
}
