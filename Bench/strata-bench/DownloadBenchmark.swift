// `strata-bench download [MiB]`: one large body through the README's full stack over pinned TLS,
// read with `stream` as it arrives, over HTTP/1.1 and HTTP/2, against `curl -o /dev/null` of the
// same file from the same nginx (Debian nginx-light). Rounds interleave the clients; each figure
// is the median over rounds, and the peak growth of this process's resident memory (VmRSS,
// sampled every 2 ms while the body streams) is the largest over rounds.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Strata
import StrataPinning
import TestServer
import TLSTestServer
import TestSupport

enum DownloadBenchmark {
    private enum Client {
        case strata(any Transport, URL)
        case curl(http2: Bool, URL)
    }

    static func run(_ options: BenchOptions) async throws {
        guard NginxServer.isInstalled else {
            print("strata-bench download needs nginx: apt-get install nginx-light")
            return
        }
        let mebibytes = options.positional.first.flatMap(Int.init) ?? (options.quick ? 16 : 256)
        let rounds = options.rounds ?? (options.quick ? 1 : 3)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-download-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("big.bin")
        try makeSparseFile(file, bytes: mebibytes << 20)
        let directives = "access_log off; location = /big { alias \(file.path); }"
        let http1 = try await NginxServer.start(http2: false, directives: directives)
        let http2 = try await NginxServer.start(http2: true, directives: directives)
        defer { http1.stop(); http2.stop() }

        func stacked(_ version: HTTPVersionPolicy) throws -> any Transport {
            PinnedBenchmark.stack(over: try BenchFixtures.pinningTransport(maxConnectionsPerHost: 1, httpVersion: version))
        }
        // Both protocols stream: HTTP/1.1 reads the connection as the body is consumed, HTTP/2
        // reopens the stream's flow-control window as far as it was consumed.
        var clients: [(String, Client)] = [
            ("full stack, stream, HTTP/1.1", .strata(try stacked(.http1Only), http1.url("/big"))),
            ("full stack, stream, HTTP/2", .strata(try stacked(.http2Only), http2.url("/big"))),
        ]
        if CurlRun.executable != nil {
            clients += [
                ("curl -o /dev/null --http1.1", .curl(http2: false, http1.url("/big"))),
                ("curl -o /dev/null --http2", .curl(http2: true, http2.url("/big"))),
            ]
        }
        print(
            "\(mebibytes) MiB from nginx \(BenchFixtures.nginxVersion()) over loopback TLS 1.3, pinned; "
                + "\(rounds) interleaved rounds, medians; RSS growth: the largest peak over rounds")
        var seconds = Array(repeating: [Double](), count: clients.count)
        var growth = Array(repeating: 0, count: clients.count)
        for round in 0..<rounds {
            for offset in clients.indices {
                let index = (offset + round) % clients.count
                switch clients[index].1 {
                case .strata(let transport, let url):
                    let (elapsed, peak) = try await download(url, through: transport, expecting: mebibytes << 20)
                    seconds[index].append(elapsed)
                    growth[index] = max(growth[index], peak)
                case .curl(let http2, let url):
                    seconds[index].append(try await offCooperativePool { try curl(url, http2: http2) })
                }
            }
        }
        print("client".padding(toLength: 34, withPad: " ", startingAt: 0) + "     MiB/s   vs curl   RSS growth")
        for (index, client) in clients.enumerated() {
            let rate = Double(mebibytes) / Measurement.median(seconds[index])
            let isHTTP2 = client.0.hasSuffix("HTTP/2") || client.0.hasSuffix("--http2")
            let curlIndex = clients.firstIndex { $0.0 == (isHTTP2 ? "curl -o /dev/null --http2" : "curl -o /dev/null --http1.1") }
            let versus = curlIndex.map { Measurement.median(seconds[$0]) / Measurement.median(seconds[index]) }
            let rss = client.0.hasPrefix("curl") ? "" : String(format: "%.1f MiB", Double(growth[index]) / 1_048_576)
            print(
                client.0.padding(toLength: 34, withPad: " ", startingAt: 0)
                    + String(format: "%10.0f", rate)
                    + (versus.map { String(format: "%9.2f×", $0) } ?? "          ")
                    + rss.leftPadded(to: 13))
        }
    }

    /// Streams `url` through `transport`, counting the bytes; the time taken and the peak growth
    /// of this process's resident memory while it ran.
    private static func download(
        _ url: URL, through transport: any Transport,
        expecting bytes: Int
    ) async throws -> (seconds: Double, rssGrowth: Int) {
        let sampler = RSSSampler()
        let start = ContinuousClock.now
        let received = try await transport.stream(HTTPRequest(url: url)) { head, body in
            guard head.statusCode == 200 else { throw CurlRun.Failure(description: "status \(head.statusCode)") }
            var count = 0
            for try await chunk in body { count += chunk.count }
            return count
        }
        let elapsed = Measurement.nanoseconds(ContinuousClock.now - start) / 1e9
        let growth = sampler.stop()
        guard received == bytes else { throw CurlRun.Failure(description: "received \(received) of \(bytes) bytes") }
        return (elapsed, growth)
    }

    /// curl's wall time for one download of `url` to /dev/null, with the same pin and CA.
    private static func curl(_ url: URL, http2: Bool) throws -> Double {
        let pin = "sha256//" + (try BenchFixtures.leafPin().dropFirst("sha256/".count))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CurlRun.executable!)
        process.arguments = [
            "--silent", "--show-error", "--fail", http2 ? "--http2" : "--http1.1",
            "--cacert", BenchFixtures.caFile.path, "--pinnedpubkey", pin,
            "--resolve", "localhost:\(url.port!):127.0.0.1", "-o", "/dev/null", url.absoluteString,
        ]
        process.standardOutput = FileHandle.nullDevice
        let start = ContinuousClock.now
        try process.run()
        process.waitForExit()
        guard process.terminationStatus == 0 else { throw CurlRun.Failure(description: "curl exited with \(process.terminationStatus)") }
        return Measurement.nanoseconds(ContinuousClock.now - start) / 1e9
    }

    /// A file of `bytes` zeros that takes no disk space (nginx reads it like any other).
    private static func makeSparseFile(_ url: URL, bytes: Int) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0, ftruncate(descriptor, off_t(bytes)) == 0 else {
            throw CurlRun.Failure(description: "cannot make \(url.path): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
    }
}

/// Samples this process's VmRSS on a thread of its own until stopped; the peak above the first sample.
final class RSSSampler: Sendable {
    private let state = LockedValue((running: true, baseline: 0, peak: 0))
    private let done = DispatchSemaphore(value: 0)

    init() {
        let baseline = Self.residentBytes()
        state.withLock {
            $0.baseline = baseline; $0.peak = baseline
        }
        let thread = Thread { [self] in
            while state.withLock({ $0.running }) {
                let now = Self.residentBytes()
                state.withLock { $0.peak = max($0.peak, now) }
                usleep(2_000)
            }
            done.signal()
        }
        thread.start()
    }

    /// Stops sampling; the peak growth in bytes.
    func stop() -> Int {
        state.withLock { $0.running = false }
        done.wait()
        return state.withLock { $0.peak - $0.baseline }
    }

    /// VmRSS from /proc/self/status, in bytes.
    static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }
}
