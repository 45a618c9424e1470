// `strata-bench decode [MiB]`: decoding throughput of the pinned path against
// `curl --compressed -o /dev/null` on the same bytes from the same nginx (Debian nginx-light):
// - a large compressible JSON-lines file (default 128 MiB) served with `gzip on` (nginx
//   compresses as it sends, level 1) and with `gzip_static on` (a `gzip -6` file made first),
//   streamed over pinned HTTP/1.1 and HTTP/2;
// - the 220 KB JSON fixture in gzip, br and zstd (Tests/Fixtures/ContentCoding; nginx-light has
//   no brotli module, so nginx serves the pre-encoded files), fetched 200 times over one
//   connection, as an API client would.
// Figures are decoded MiB/s, medians of interleaved rounds.
import Foundation
import Strata
import StrataPinning
import TestServer
import TLSTestServer
import TestSupport

enum DecodeBenchmark {
    private static let fixtures = TLSLoopbackServer.fixtures.deletingLastPathComponent().appendingPathComponent("ContentCoding")

    static func run(_ options: BenchOptions) async throws {
        guard NginxServer.isInstalled, let curl = CurlRun.executable else {
            print("strata-bench decode needs nginx and curl: apt-get install nginx-light curl")
            return
        }
        let mebibytes = options.positional.first.flatMap(Int.init) ?? (options.quick ? 8 : 128)
        let rounds = options.rounds ?? (options.quick ? 1 : 3)
        let fetches = options.quick ? 20 : 200
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-decode-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let large = directory.appendingPathComponent("large.json")
        try writeJSONLines(large, bytes: mebibytes << 20)
        let madeStatic = try await offCooperativePool { try gzipKeepingOriginal(large) }
        for name in ["todos.json", "todos.json.br", "todos.json.zst", "todos.json.gz"] {
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent(name), to: directory.appendingPathComponent(name))
        }
        let directives = """
            access_log off;
            location = /gzip-on { gzip on; gzip_types application/json; gzip_min_length 0; default_type application/json; alias \(large.path); }
            location = /static/large.json { gzip_static on; default_type application/json; alias \(large.path); }
            location = /fixture.gz { default_type application/json; add_header Content-Encoding gzip; alias \(directory.path)/todos.json.gz; }
            location = /fixture.br { default_type application/json; add_header Content-Encoding br; alias \(directory.path)/todos.json.br; }
            location = /fixture.zst { default_type application/json; add_header Content-Encoding zstd; alias \(directory.path)/todos.json.zst; }
            """
        let http1 = try await NginxServer.start(http2: false, directives: directives)
        let http2 = try await NginxServer.start(http2: true, directives: directives)
        defer { http1.stop(); http2.stop() }
        let pinned1 = try BenchFixtures.pinningTransport(maxConnectionsPerHost: 1, httpVersion: .http1Only)
        let pinned2 = try BenchFixtures.pinningTransport(maxConnectionsPerHost: 1, httpVersion: .preferHTTP2)
        let fixtureBytes = try Data(contentsOf: fixtures.appendingPathComponent("todos.json")).count

        print(
            "decoded MiB/s, pinned PinningTransport.stream vs curl --compressed -o /dev/null (\(curl)), nginx "
                + "\(BenchFixtures.nginxVersion()) over loopback TLS; \(rounds) interleaved rounds, medians")
        var rows: [(String, Double, Double)] = []
        var paths = ["/gzip-on"]
        if madeStatic { paths.append("/static/large.json") }
        for path in paths {
            for (version, server, transport) in [("HTTP/1.1", http1, pinned1), ("HTTP/2", http2, pinned2)] {
                var strata: [Double] = []
                var reference: [Double] = []
                for _ in 0..<rounds {
                    strata.append(try await timeStreamed(server.url(path), count: 1, through: transport, expecting: mebibytes << 20))
                    reference.append(
                        try await offCooperativePool {
                            try timeCurl(server.url(path), count: 1, http2: version == "HTTP/2", directory: directory)
                        })
                }
                rows.append(
                    (
                        "\(mebibytes) MiB JSON lines, \(path == "/gzip-on" ? "gzip on" : "gzip_static"), \(version)",
                        Double(mebibytes) / Measurement.median(strata), Double(mebibytes) / Measurement.median(reference)
                    ))
            }
        }
        let fixtureCodings =
            [("gzip", "/fixture.gz")]
            + (ContentCoding.supported.contains(.brotli) ? [("br", "/fixture.br")] : [])
            + (ContentCoding.supported.contains(.zstd) ? [("zstd", "/fixture.zst")] : [])
        let fixtureMebibytes = Double(fixtureBytes * fetches) / 1_048_576
        for (coding, path) in fixtureCodings {
            var strata: [Double] = []
            var reference: [Double] = []
            for _ in 0..<rounds {
                strata.append(try await timeStreamed(http1.url(path), count: fetches, through: pinned1, expecting: fixtureBytes))
                reference.append(
                    try await offCooperativePool {
                        try timeCurl(http1.url(path), count: fetches, http2: false, directory: directory)
                    })
            }
            rows.append(
                (
                    "220 KB JSON ×\(fetches), \(coding), HTTP/1.1",
                    fixtureMebibytes / Measurement.median(strata), fixtureMebibytes / Measurement.median(reference)
                ))
        }
        print("scenario".padding(toLength: 44, withPad: " ", startingAt: 0) + "   Strata MiB/s   curl MiB/s   Strata/curl")
        for (name, strata, curl) in rows {
            print(
                name.padding(toLength: 44, withPad: " ", startingAt: 0) + String(format: "%15.0f%13.0f%13.2f×", strata, curl, strata / curl)
            )
        }
    }

    /// Seconds to stream `url` `count` times through `transport`, checking each decoded length.
    private static func timeStreamed(_ url: URL, count: Int, through transport: PinningTransport, expecting bytes: Int) async throws
        -> Double
    {
        let start = ContinuousClock.now
        for _ in 0..<count {
            let received = try await transport.stream(HTTPRequest(url: url)) { head, body in
                guard head.statusCode == 200, head.headers["Content-Encoding"] == nil else {
                    throw CurlRun.Failure(
                        description: "status \(head.statusCode), Content-Encoding \(head.headers["Content-Encoding"] ?? "none")")
                }
                var received = 0
                for try await chunk in body { received += chunk.count }
                return received
            }
            guard received == bytes else { throw CurlRun.Failure(description: "decoded \(received) of \(bytes) bytes from \(url.path)") }
        }
        return Measurement.nanoseconds(ContinuousClock.now - start) / 1e9
    }

    /// curl's wall time for `count` compressed downloads of `url` to /dev/null over one
    /// connection, with the same CA and pin; blocks while it runs.
    private static func timeCurl(_ url: URL, count: Int, http2: Bool, directory: URL) throws -> Double {
        let pin = "sha256//" + (try BenchFixtures.leafPin().dropFirst("sha256/".count))
        let list = directory.appendingPathComponent("curl-decode-\(count).txt")
        try String(repeating: "url = \"\(url.absoluteString)\"\noutput = \"/dev/null\"\n", count: count)
            .write(to: list, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CurlRun.executable!)
        process.arguments = [
            "--silent", "--show-error", "--fail", "--compressed", http2 ? "--http2" : "--http1.1",
            "--cacert", BenchFixtures.caFile.path, "--pinnedpubkey", pin,
            "--resolve", "localhost:\(url.port!):127.0.0.1", "--config", list.path,
        ]
        process.standardOutput = FileHandle.nullDevice
        let start = ContinuousClock.now
        try process.run()
        process.waitForExit()
        guard process.terminationStatus == 0 else { throw CurlRun.Failure(description: "curl exited with \(process.terminationStatus)") }
        return Measurement.nanoseconds(ContinuousClock.now - start) / 1e9
    }

    /// A file of `bytes` bytes of JSON lines, each a little different (compresses about 10:1,
    /// as API exports do), written 1 MiB at a time.
    private static func writeJSONLines(_ url: URL, bytes: Int) throws {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var written = 0
        var id = 0
        while written < bytes {
            var piece = ""
            while piece.utf8.count < min(1 << 20, bytes - written) {
                piece +=
                    #"{"id":\#(id),"title":"Task \#(id)","done":\#(id % 3 == 0),"owner":"user\#(id % 97)","#
                    + #""created":"2026-\#(id % 12 + 1)-\#(id % 28 + 1)T10:\#(id % 60):00Z"}"# + "\n"
                id += 1
            }
            let data = Data(piece.utf8.prefix(bytes - written))
            try handle.write(contentsOf: data)
            written += data.count
        }
    }

    /// Makes `<file>.gz` with the system gzip (level 6) beside `file`; false where gzip is missing.
    private static func gzipKeepingOriginal(_ file: URL) throws -> Bool {
        guard let gzip = ["/usr/bin/gzip", "/bin/gzip"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return false
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gzip)
        process.arguments = ["-6", "-k", "-f", file.path]
        try process.run()
        process.waitForExit()
        return process.terminationStatus == 0
    }
}
