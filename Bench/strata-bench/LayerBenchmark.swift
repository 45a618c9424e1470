#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataResilience

/// `strata-bench layers`: what each decorator adds to a request, alone and stacked, over an
/// in-memory terminal (no network, so only the layers' own work counts): nanoseconds and heap
/// allocations per request, sequential GETs carrying a bearer token.
///
/// Every scenario runs once per round, rounds interleaved (each round starts one scenario
/// later), and the median round is reported. A layer's overhead is the median, over rounds, of
/// its time minus the bare terminal's time in the same round.
enum LayerBenchmark {
    struct Row: Encodable {
        var name: String
        /// Median nanoseconds per request over the rounds, and the fastest and slowest round.
        var nanosecondsPerRequest: Double
        var fastestRound: Double
        var slowestRound: Double
        /// Median over rounds of this scenario's time minus the bare terminal's.
        var overheadNanoseconds: Double
        /// The same two figures in CPU time (every thread of the process): what the layers cost
        /// when other processes compete for the cores, as they do on a shared machine.
        var cpuNanosecondsPerRequest: Double
        var cpuOverheadNanoseconds: Double
        var allocationsPerRequest: Double
        var extraAllocationsPerRequest: Double
        /// The target for the overhead (issue 14; issue 25 for the fresh hit), when there is one.
        var targetNanoseconds: Double?
        var meetsTarget: Bool?
    }

    struct Report: Encodable {
        var requestsPerRound: Int
        var rounds: Int
        /// `--evict-bytes`: bytes the terminal read before each answer (0: none); the times
        /// include that eviction.
        var evictBytes: Int
        /// Whether that eviction also evicted the instruction cache (x86-64, executable memory
        /// allowed); without it a layer's code is under-counted.
        var evictsCode: Bool
        var rows: [Row]
    }

    /// A logger whose level is off: a LoggingTransport above it formats nothing.
    private struct SilentLogger: StrataLogger {
        func isEnabled(_ level: LogLevel) -> Bool { false }
        func record(_ level: LogLevel, _ message: String, metadata: LogMetadata) {}
    }

    /// The terminal: answers at once with a prebuilt 200 carrying an ETag, with the header
    /// fields nginx sends; with `revalidates`, a request whose If-None-Match holds that ETag gets
    /// nginx's 304 instead; with `freshFor`, the 200 is dated now and says `Cache-Control: max-age`
    /// (nginx's `expires`), so that a cache serves it fresh.
    private struct Answering: Transport, EventObservationScope {
        /// A terminal, as the network's are: nothing below observes.
        var mayObserveEvents: Bool { false }
        static let etag = "\"v1\""
        let revalidates: Bool
        /// Evicts the caches before each answer (`--evict-bytes`).
        let evictor: CacheEvictor?
        private let ok: HTTPResponse
        private let notModified = HTTPResponse(
            statusCode: 304,
            headers: HTTPHeaders([
                ("Server", "nginx/1.22.1"), ("Date", "Sun, 30 Nov 2025 16:00:00 GMT"), ("Connection", "keep-alive"),
                ("ETag", Answering.etag),
            ]))

        init(revalidates: Bool, freshFor seconds: Int? = nil, evictor: CacheEvictor? = nil) {
            self.revalidates = revalidates
            self.evictor = evictor
            var headers = HTTPHeaders([
                ("Server", "nginx/1.22.1"), ("Date", "Sun, 30 Nov 2025 16:00:00 GMT"), ("Content-Type", "application/json"),
                ("Content-Length", "71"), ("Connection", "keep-alive"), ("ETag", Answering.etag),
            ])
            if let seconds {
                headers["Date"] = Self.httpDate(Date())
                headers.add(name: "Cache-Control", value: "max-age=\(seconds)")
            }
            ok = HTTPResponse(
                statusCode: 200, headers: headers,
                body: Data(#"{"id":42,"name":"Ada Lovelace","email":"ada@example.com","active":true}"#.utf8))
        }

        /// `date` as an IMF-fixdate, as nginx writes `Date`.
        private static func httpDate(_ date: Date) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            return formatter.string(from: date)
        }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            evictor?.evict()
            var response = Self.parsedCopy(request.headers["If-None-Match"] == Self.etag && revalidates ? notModified : ok)
            response.url = request.url
            return response
        }

        /// `response` with storage of its own, as a parser builds for every response read: a
        /// layer comparing it with what it stored gets no shortcut from shared storage.
        private static func parsedCopy(_ response: HTTPResponse) -> HTTPResponse {
            var copy = response
            copy.headers = HTTPHeaders(response.headers.map { (fresh($0.name), fresh($0.value)) })
            copy.body = response.body.withUnsafeBytes { Data($0) }
            return copy
        }

        private static func fresh(_ text: String) -> String {
            String(decoding: Array(text.utf8), as: UTF8.self)
        }
    }

    private struct Scenario {
        var name: String
        var target: Double?
        var transport: any Transport
    }

    private static func scenarios(evictor: CacheEvictor?) -> [Scenario] {
        let auth = InMemoryAuthService(accessToken: "token")
        let stored = Answering(revalidates: false, evictor: evictor)
        let revalidating = Answering(revalidates: true, evictor: evictor)
        func reauth(_ inner: any Transport) -> any Transport { ReauthTransport(inner: inner, authService: auth) {} }
        func stack(_ terminal: Answering) -> any Transport {
            reauth(RetryTransport(inner: ETagTransport(inner: terminal, store: InMemoryETagStore())))
        }
        return [
            Scenario(name: "in-memory terminal alone", transport: stored),
            Scenario(name: "RetryTransport", target: 1_000, transport: RetryTransport(inner: stored)),
            Scenario(name: "ReauthTransport", target: 1_000, transport: reauth(stored)),
            Scenario(
                name: "LoggingTransport, logger off", target: 1_000,
                transport: LoggingTransport(inner: stored, logger: SilentLogger())),
            Scenario(
                name: "ETagTransport, 200 stored", target: 2_000,
                transport: ETagTransport(inner: stored, store: InMemoryETagStore())),
            Scenario(
                name: "ETagTransport, 304 revalidated", target: 2_000,
                transport: ETagTransport(inner: revalidating, store: InMemoryETagStore())),
            // Issue 25: a fresh hit (max-age) answered from the store, the terminal never called.
            Scenario(
                name: "ETagTransport, fresh hit (max-age)", target: 1_500,
                transport: ETagTransport(
                    inner: Answering(revalidates: false, freshFor: 86_400, evictor: evictor),
                    store: InMemoryETagStore())),
            // Issue 43: each resilience layer when nothing trips (closed circuit, free places, no
            // window closed, an answer before the hedge delay, an attempt in time).
            Scenario(name: "CircuitBreakerTransport, closed", target: 1_000, transport: CircuitBreakerTransport(inner: stored)),
            Scenario(
                name: "ConcurrencyLimitTransport, places free", target: 1_000, transport: ConcurrencyLimitTransport(inner: stored)),
            Scenario(
                name: "AttemptTimeoutTransport, in time", target: 1_000,
                transport: AttemptTimeoutTransport(inner: stored, timeout: .seconds(30))),
            Scenario(name: "Reauth → Retry → ETag, 200 stored", transport: stack(stored)),
            Scenario(name: "Reauth → Retry → ETag, 304 revalidated", transport: stack(revalidating)),
            Scenario(
                name: "Logging (off) → Reauth → Retry → ETag, 304",
                transport: LoggingTransport(inner: stack(revalidating), logger: SilentLogger())),
        ]
    }

    static func run(_ options: BenchOptions, output: BenchOutput) async throws -> Report {
        let requests = options.requests ?? (options.quick ? 10_000 : 100_000)
        let rounds = options.rounds ?? (options.quick ? 3 : 5)
        let evictor = options.evictBytes > 0 ? CacheEvictor(bytes: options.evictBytes) : nil
        let all = scenarios(evictor: evictor)
        let baseline = all[0].name
        let chosen = all.enumerated().filter { $0.offset == 0 || options.includes($0.element.name) }.map(\.element)
        let request = HTTPRequest(
            url: URL(string: "https://api.example.com/v1/todos?page=1")!,
            headers: ["Authorization": "Bearer token"])

        output.line(
            "In-memory layers: \(formatted(Double(requests))) sequential GETs with a bearer token per scenario "
                + "and round, \(rounds) interleaved rounds, medians")
        if let evictor {
            let code =
                evictor.evictsCode
                ? "and calls code in each line of 128 KiB"
                : "but evicts no code (it cannot map executable memory here): a layer's code is under-counted"
            output.line(
                "the terminal reads \(formatted(Double(options.evictBytes))) bytes \(code) before each answer (--evict-bytes): "
                    + "times include the eviction; for callgrind's cache simulation (COLD=1 scripts/layer-instructions.sh)")
        }
        var nanoseconds: [String: [Double]] = [:]
        var cpuNanoseconds: [String: [Double]] = [:]
        var allocations: [String: [Double]] = [:]
        for round in 0..<rounds {
            for index in chosen.indices {
                let scenario = chosen[(index + round) % chosen.count]
                for _ in 0..<1_000 { _ = try await scenario.transport.send(request) }
                let allocationsBefore = Measurement.allocations
                let cpuStart = Measurement.processCPUNanoseconds
                let start = ContinuousClock.now
                for _ in 0..<requests { _ = try await scenario.transport.send(request) }
                let elapsed = ContinuousClock.now - start
                let cpu = Measurement.processCPUNanoseconds - cpuStart
                let allocated = Measurement.allocations - allocationsBefore
                cpuNanoseconds[scenario.name, default: []].append(cpu / Double(requests))
                nanoseconds[scenario.name, default: []].append(Measurement.nanoseconds(elapsed) / Double(requests))
                allocations[scenario.name, default: []].append(Double(allocated) / Double(requests))
            }
        }

        let baseNanoseconds = nanoseconds[baseline]!
        let baseCPUNanoseconds = cpuNanoseconds[baseline]!
        let baseAllocations = Measurement.median(allocations[baseline]!)
        let rows = chosen.map { scenario -> Row in
            let times = nanoseconds[scenario.name]!
            let overhead = Measurement.median(zip(times, baseNanoseconds).map { $0 - $1 })
            let cpuTimes = cpuNanoseconds[scenario.name]!
            let allocated = Measurement.median(allocations[scenario.name]!)
            return Row(
                name: scenario.name, nanosecondsPerRequest: Measurement.median(times),
                fastestRound: times.min()!, slowestRound: times.max()!, overheadNanoseconds: overhead,
                cpuNanosecondsPerRequest: Measurement.median(cpuTimes),
                cpuOverheadNanoseconds: Measurement.median(zip(cpuTimes, baseCPUNanoseconds).map { $0 - $1 }),
                allocationsPerRequest: allocated, extraAllocationsPerRequest: allocated - baseAllocations,
                targetNanoseconds: scenario.target, meetsTarget: scenario.target.map { overhead <= $0 })
        }
        output.line(
            "".padded(to: 46) + "wall ns/request".leftPadded(to: 16) + "".leftPadded(to: 16)
                + "cpu ns/request".leftPadded(to: 17) + "allocations".leftPadded(to: 14))
        output.line(
            "scenario".padded(to: 46) + "median".leftPadded(to: 8) + "overhead".leftPadded(to: 10)
                + "rounds".leftPadded(to: 14) + "median".leftPadded(to: 8) + "overhead".leftPadded(to: 10)
                + "each".leftPadded(to: 7) + "extra".leftPadded(to: 7) + "  target (wall overhead)")
        for row in rows {
            let target = row.targetNanoseconds.map { "≤ \(formatted($0)) ns " + (row.meetsTarget! ? "met" : "MISSED") } ?? ""
            output.line(
                row.name.padded(to: 46) + formatted(row.nanosecondsPerRequest).leftPadded(to: 8)
                    + (row.name == baseline ? "" : formatted(row.overheadNanoseconds)).leftPadded(to: 10)
                    + "\(formatted(row.fastestRound))–\(formatted(row.slowestRound))".leftPadded(to: 14)
                    + formatted(row.cpuNanosecondsPerRequest).leftPadded(to: 8)
                    + (row.name == baseline ? "" : formatted(row.cpuOverheadNanoseconds)).leftPadded(to: 10)
                    + formatted(row.allocationsPerRequest, decimals: 1).leftPadded(to: 7)
                    + (row.name == baseline ? "" : formatted(row.extraAllocationsPerRequest, decimals: 1)).leftPadded(to: 7)
                    + "  " + target)
        }
        return Report(
            requestsPerRound: requests, rounds: rounds, evictBytes: options.evictBytes,
            evictsCode: evictor?.evictsCode ?? false, rows: rows)
    }
}
