// strata-bench: what Strata's transports and layers cost, measured side by side in one run.
//
//   swift build -c release --product strata-bench
//   .build/release/strata-bench              (layers, then pinned: the README's performance figures)
//   .build/release/strata-bench layers       (each decorator and the stack over an in-memory terminal)
//   .build/release/strata-bench pinned       (bare PinningTransport vs the stack, and curl, over loopback TLS)
//   .build/release/strata-bench pinned-layers [blocks]   (each layer alone and the stack over the network, paired blocks)
//   .build/release/strata-bench urlsession   (PinningTransport vs URLSessionTransport on loopback)
//   .build/release/strata-bench stores       (ETag stores: Redis vs file vs memory)
//   .build/release/strata-bench events       (the event channel's cost per request)
//   .build/release/strata-bench http2 [requests] [rounds]   (pinned HTTP/2 vs HTTP/1.1 vs URLSession, nginx)
//   .build/release/strata-bench download [MiB]   (a large body streamed through the full stack vs curl, with RSS)
//   .build/release/strata-bench sse [events]   (server-sent events per second from a loopback server)
//   .build/release/strata-bench decode [MiB]   (decoding gzip, br, zstd: pinned stream vs curl --compressed, nginx)
//   .build/release/strata-bench idle [counts…]   (16, 256, 1,000 idle pinned connections: threads, RSS, wake-ups, a request's cost)
//   .build/release/strata-bench locks [increments]   (LockedValue vs Synchronization.Mutex; see LockBenchmark)
//   flags: --json (one JSON object on stdout), --quick (a short run for CI), --rounds N,
//          --requests N, --only NAME (scenarios whose name contains NAME, for perf or callgrind;
//          NAME$ for a name that ends so)
//
// Figures depend on the machine and its load; a quick run checks that every scenario works,
// its figures are rough. CI builds this target and runs it with --quick; nothing fails on a
// figure.
import Foundation

let options: BenchOptions
do {
    options = try BenchOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(64)
}

// The main thread waits on a semaphore instead of running async top-level code: that code parks
// the main thread in libdispatch's dispatch_main, whose sigsuspend valgrind 3.19 cannot follow
// (it crashes), and callgrind's instruction counts are the one measure here that machine load
// does not move (this machine has no hardware counters for perf stat).
let finished = DispatchSemaphore(value: 0)
Task.detached {
    do {
        switch options.command {
        case .stores:
            try await StoreBenchmark.run()
        case .events:
            try await EventBenchmark.run()
        case .urlsession:
            try await SessionBenchmark.run(options)
        case .http2:
            try await HTTP2Benchmark.run(arguments: options.positional)
        case .download:
            try await DownloadBenchmark.run(options)
        case .pinnedLayers:
            try await PinnedLayerCostBenchmark.run(options)
        case .sse:
            try await ServerSentEventBenchmark.run(options)
        case .decode:
            try await DecodeBenchmark.run(options)
        case .idle:
            try await IdleConnectionsBenchmark.run(options)
        case .locks:
            LockBenchmark.run(iterations: options.positional.first.flatMap { Int($0) } ?? 10_000_000)
        case .all, .layers, .pinned:
            try await BenchReport.run(options)
        }
    } catch {
        FileHandle.standardError.write(Data("strata-bench: \(error)\n".utf8))
        exit(1)
    }
    finished.signal()
}
finished.wait()
