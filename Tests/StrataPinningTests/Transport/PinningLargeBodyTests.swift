import Foundation
import Strata
@testable import StrataPinning
import Testing
import TestServer
import TestSupport
import TLSTestServer

/// Runs ``PinningLargeBodyTests`` in a process of its own: the resident set is the whole
/// process's, and the other suites running beside it in this one (64 concurrent 1 MB bodies, say)
/// would be counted as the transfer's.
@Suite(
    "Large-body memory is measured in a process of its own",
    .enabled(if: NginxServer.isInstalled, Comment(rawValue: NginxServer.missing)),
    .disabled(if: MeasuringProcess.isMeasuring, "this is the measuring process"),
    .disabled(if: !ResidentMemory.isMeaningful, "memory bounds mean nothing under a sanitizer"))
struct PinningLargeBodyIsolationTests {
    @Test("the large-body tests pass in a process where nothing else runs")
    func isolated() async throws {
        let (status, output) = try await MeasuringProcess.run(filter: "PinningLargeBodyTests")
        let measured = output.split(separator: "\n").filter { $0.contains("resident growth") }
        for line in measured { print(line) }
        #expect(status == 0, "\(output)")
        #expect(measured.count == 4, "the child did not run every large-body test (both ways, both protocols): \(output)")
    }
}

/// Bodies far larger than memory should hold travel through a pinned HTTP/1.1 connection, and a
/// pinned HTTP/2 stream, to a real nginx with bounded resident memory. Runs only in the process
/// ``PinningLargeBodyIsolationTests`` starts for it; skipped where nginx is missing.
@Suite(
    "PinningTransport moves large bodies with bounded memory (nginx)", .serialized,
    .enabled(if: NginxServer.isInstalled, Comment(rawValue: NginxServer.missing)),
    .enabled(if: MeasuringProcess.isMeasuring, "runs in the process PinningLargeBodyIsolationTests starts"))
struct PinningLargeBodyTests {

    /// The most the resident set may grow while a large body moves: the body channel's high
    /// watermark, the request pipe's few chunks, TLS and receive buffers (and over HTTP/2 the
    /// stream's 1 MiB receive window) are well under it.
    static let maxResidentGrowth = 32 << 20

    /// A fresh directory for nginx to serve from or write to.
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-large-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The configuration that makes nginx and the client speak `http2` or HTTP/1.1, nothing else.
    static func configuration(http2: Bool) -> PinningTransport.Configuration {
        .init(requestTimeout: .seconds(120), httpVersion: http2 ? .http2Only : .http1Only)
    }

    static func name(http2: Bool) -> String { http2 ? "HTTP/2" : "HTTP/1.1" }

    @Test(
        "a 256 MiB download streams through consume with the resident set growing less than 32 MiB (HTTP/1.1, HTTP/2)",
        arguments: [false, true])
    func download(http2: Bool) async throws {
        let size = ResidentMemory.streamedBytes(256 << 20)
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Sparse: the file costs no disk, and nginx reads zeros from it.
        let file = directory.appendingPathComponent("big.bin")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: UInt64(size))
        try handle.close()
        let server = try await NginxServer.start(http2: http2, directives: "location /big.bin { alias \(file.path); }")
        defer { server.stop() }
        let events = PinningEventLog()
        let transport = events.observing(try Pinning.transport(configuration: Self.configuration(http2: http2)))

        let baseline = ResidentMemory.bytes
        ResidentMemory.resetPeak()
        let (received, nonZero, sampledPeak) = try await transport.stream(Pinning.get(server.url("/big.bin"))) { head, body in
            #expect(head.statusCode == 200)
            var received = 0
            var nonZero = 0
            var peak = 0
            var chunks = 0
            let zeros = [UInt8](repeating: 0, count: 1 << 20)
            for try await chunk in body {
                received += chunk.count
                // memcmp against zeros: a per-byte loop is what a debug build would spend its time on.
                let zero =
                    chunk.count <= zeros.count
                    && chunk.withUnsafeBytes { raw in zeros.withUnsafeBytes { memcmp(raw.baseAddress!, $0.baseAddress!, raw.count) } } == 0
                if !zero { nonZero += 1 }
                chunks += 1
                if chunks % 64 == 0 { peak = max(peak, ResidentMemory.bytes) }
            }
            return (received, nonZero, peak)
        }
        let growth = max(sampledPeak, ResidentMemory.peak) - baseline
        #expect(received == size)
        #expect(nonZero == 0)
        #expect((http2 ? events.http2Responses : events.http1Responses) == 1)
        if ResidentMemory.isMeaningful { #expect(growth < Self.maxResidentGrowth, "resident set grew by \(growth >> 20) MiB") }
        print(
            "256 MiB download over \(Self.name(http2: http2)): resident growth \(growth >> 10) KiB "
                + "(sampled \(max(0, sampledPeak - baseline) >> 10) KiB)")
    }

    @Test(
        "a 64 MiB file upload is read as it is sent, with the resident set growing less than 32 MiB (HTTP/1.1, HTTP/2)",
        arguments: [false, true])
    func upload(http2: Bool) async throws {
        let size = ResidentMemory.streamedBytes(64 << 20)
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let uploads = directory.appendingPathComponent("uploads")
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        // A patterned file written 1 MiB at a time, so the test never holds it either.
        let file = directory.appendingPathComponent("upload.bin")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let writer = try FileHandle(forWritingTo: file)
        // One pattern, each copy stamped with its index: building every MiB byte by byte is what
        // took a debug build seconds (the upload itself takes a tenth of one).
        var piece = Data(BodyPattern.bytes(from: 0, count: 1 << 20))
        for index in 0..<(size >> 20) {
            piece[0] = UInt8(truncatingIfNeeded: index)
            piece[piece.count - 1] = UInt8(truncatingIfNeeded: index >> 8)
            try writer.write(contentsOf: piece)
        }
        try writer.close()
        let server = try await NginxServer.start(
            http2: http2,
            directives: """
                location /uploads/ { alias \(uploads.path)/; dav_methods PUT; client_max_body_size 0; }
                """)
        defer { server.stop() }
        let events = PinningEventLog()
        let transport = events.observing(try Pinning.transport(configuration: Self.configuration(http2: http2)))

        let baseline = ResidentMemory.bytes
        ResidentMemory.resetPeak()
        let response = try await transport.send(
            HTTPRequest(
                method: .put, url: server.url("/uploads/copy.bin"),
                body: try HTTPBody(contentsOf: file)))
        let growth = ResidentMemory.peak - baseline
        #expect(response.statusCode == 201)
        #expect(try Self.sameContents(file, uploads.appendingPathComponent("copy.bin")))
        #expect((http2 ? events.http2Responses : events.http1Responses) == 1)
        if ResidentMemory.isMeaningful { #expect(growth < Self.maxResidentGrowth, "resident set grew by \(growth >> 20) MiB") }
        print("64 MiB upload over \(Self.name(http2: http2)): resident growth \(growth >> 10) KiB")
    }

    /// Whether two files hold the same bytes, compared 1 MiB at a time.
    static func sameContents(_ a: URL, _ b: URL) throws -> Bool {
        let first = try FileHandle(forReadingFrom: a)
        let second = try FileHandle(forReadingFrom: b)
        defer {
            try? first.close()
            try? second.close()
        }
        while true {
            let left = try first.read(upToCount: 1 << 20) ?? Data()
            let right = try second.read(upToCount: 1 << 20) ?? Data()
            guard left == right else { return false }
            if left.isEmpty { return true }
        }
    }
}
