// `strata-bench idle [counts…]`: what idle-but-open pinned connections cost the process, for
// deciding whether the thread-per-connection model should give way to a shared event loop.
//
// For each count N (default 16, 256 and 1,000), one PinningTransport opens N HTTP/1.1
// connections to nginx (N requests held open together by a barrier, so none reuses another's
// connection), lets them go idle in its pool, then reports: the process's threads, its resident
// memory above the starting point, the context switches of all its threads during one idle
// second (the wake-ups idle connections cost), and the median of sequential requests made while
// the N connections stay open. Memory is sampled after `malloc_trim`, so it counts what the
// connections hold rather than what the allocator kept from draining their bodies. Each count runs in a fresh transport; the process-wide connection
// limit is raised to the count for the run.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Strata
import StrataPinning
import TestServer
import TLSTestServer

enum IdleConnectionsBenchmark {
    private struct Row {
        var connections: Int
        var threads: Int
        var residentGrowth: Int
        var switchesPerIdleSecond: Int
        var requestNanoseconds: Double
    }

    static func run(_ options: BenchOptions) async throws {
        guard NginxServer.isInstalled else {
            print("strata-bench idle needs nginx: apt-get install nginx-light")
            return
        }
        let counts = options.positional.compactMap(Int.init).filter { $0 > 0 }
        let connectionCounts = counts.isEmpty ? (options.quick ? [16] : [16, 256, 1_000]) : counts
        let requests = options.requests ?? (options.quick ? 50 : 500)
        // The connections are opened with a body too large to arrive with its head, so each
        // request keeps its connection until its reader drains it (a small body would be read
        // whole and the connection released before the reader even runs).
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-idle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(count: 1 << 20).write(to: directory.appendingPathComponent("open.bin"))
        let server = try await NginxServer.start(
            http2: false,
            directives: """
                access_log off; keepalive_timeout 300s; keepalive_requests 100000;
                location = /open { alias \(directory.appendingPathComponent("open.bin").path); }
                location = /idle { return 200 "ok"; }
                """)
        defer { server.stop() }
        let url = server.url("/idle")
        let openURL = server.url("/open")
        _ = mallocTrim(0)
        let baseline = ProcessSample.now()
        print(
            "Idle pinned HTTP/1.1 connections to nginx \(BenchFixtures.nginxVersion()) over loopback TLS 1.3; "
                + "process before: \(baseline.threads) threads, \(mebibytes(baseline.residentBytes)) RSS")
        var rows: [Row] = []
        for count in connectionCounts {
            rows.append(try await measure(connections: count, opening: openURL, url: url, requests: requests, baseline: baseline))
            try await settle(toThreads: baseline.threads + 2)
        }
        print("connections   threads   RSS growth   per conn   switches/idle s   request (median)")
        for row in rows {
            let perConnection = Double(row.residentGrowth) / Double(row.connections) / 1024
            print(
                String(row.connections).leftPadded(to: 11)
                    + String(row.threads).leftPadded(to: 10)
                    + mebibytes(row.residentGrowth).leftPadded(to: 13)
                    + String(format: "%8.0f KiB", perConnection)
                    + String(row.switchesPerIdleSecond).leftPadded(to: 18)
                    + String(format: "%14.1f µs", row.requestNanoseconds / 1_000))
        }
    }

    /// Opens `connections`, measures them idle and in use, and releases the transport (its pool
    /// closes every connection when the transport is deallocated).
    private static func measure(connections: Int, opening openURL: URL, url: URL, requests: Int, baseline: ProcessSample) async throws
        -> Row
    {
        let previousLimit = PinningTransport.maxConnectionThreads
        PinningTransport.maxConnectionThreads = max(previousLimit, connections)
        defer { PinningTransport.maxConnectionThreads = previousLimit }
        let transport = try BenchFixtures.pinningTransport(maxConnectionsPerHost: connections)
        try await openConnections(connections, to: openURL, through: transport)

        // What the connections hold, not what the allocator kept from draining their bodies:
        // glibc keeps freed memory in its per-thread arenas until asked to return it.
        _ = mallocTrim(0)
        let idleStart = ProcessSample.now()
        try await Task.sleep(for: .seconds(1))
        let idleEnd = ProcessSample.now()

        var samples: [Double] = []
        samples.reserveCapacity(requests)
        for _ in 0..<requests {
            let start = ContinuousClock.now
            let response = try await transport.send(HTTPRequest(url: url))
            samples.append(Measurement.nanoseconds(ContinuousClock.now - start))
            guard response.statusCode == 200 else { throw CurlRun.Failure(description: "status \(response.statusCode)") }
        }
        let row = Row(
            connections: connections, threads: idleEnd.threads,
            residentGrowth: idleEnd.residentBytes - baseline.residentBytes,
            switchesPerIdleSecond: idleEnd.contextSwitches - idleStart.contextSwitches,
            requestNanoseconds: Measurement.median(samples))
        return row
    }

    /// Waits (up to 5 s) for the threads of a released transport's connections to end, so the
    /// next count starts from the same process.
    private static func settle(toThreads threads: Int) async throws {
        for _ in 0..<100 where ProcessSample.now().threads > threads {
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Opens `count` connections at once: every request holds its connection (inside `stream`)
    /// until all `count` have their response head, so no request can reuse another's connection.
    private static func openConnections(_ count: Int, to url: URL, through transport: PinningTransport) async throws {
        let barrier = CountdownBarrier(count: count)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do {
                        try await transport.stream(HTTPRequest(url: url)) { head, body in
                            guard head.statusCode == 200 else { throw CurlRun.Failure(description: "status \(head.statusCode)") }
                            await barrier.arriveAndWait()
                            for try await _ in body {}
                        }
                    } catch {
                        // The others would wait for this one forever.
                        await barrier.abandon()
                        throw error
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    private static func mebibytes(_ bytes: Int) -> String {
        String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }
}

/// Releases every waiter once `count` have arrived (or one gave up: ``abandon()``).
private actor CountdownBarrier {
    private var remaining: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { remaining = count }

    func arriveAndWait() async {
        remaining -= 1
        if remaining <= 0 {
            waiters.forEach { $0.resume() }
            waiters.removeAll()
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    /// Releases every waiter now and lets later arrivals through: one of the parties failed.
    func abandon() {
        remaining = 0
        waiters.forEach { $0.resume() }
        waiters.removeAll()
    }
}

/// This process's thread count, resident memory and context switches (all threads), from /proc.
private struct ProcessSample {
    var threads: Int
    var residentBytes: Int
    var contextSwitches: Int

    static func now() -> ProcessSample {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        let switches = tasks.reduce(0) { total, task in
            guard let status = try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8) else { return total }
            return total + field("voluntary_ctxt_switches", in: status) + field("nonvoluntary_ctxt_switches", in: status)
        }
        return ProcessSample(threads: tasks.count, residentBytes: RSSSampler.residentBytes(), contextSwitches: switches)
    }

    private static func field(_ name: String, in status: String) -> Int {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
        return Int(line.split(separator: "\t").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "") ?? 0
    }
}

/// glibc's `malloc_trim` (in `<malloc.h>`, which the Glibc module does not export): returns the
/// allocator's free memory to the system.
@_silgen_name("malloc_trim")
private func mallocTrim(_ pad: Int) -> Int32
