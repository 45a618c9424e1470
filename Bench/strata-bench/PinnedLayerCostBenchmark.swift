// `strata-bench pinned-layers [blocks]`: what each layer costs over the network, not over an
// in-memory terminal: each layer alone, and the README's stack, over its own PinningTransport,
// against a bare PinningTransport, sequential GETs over HTTP/1.1 to nginx on loopback TLS.
// Other rows split the stack's cost: three layers that do nothing (what layering itself costs),
// a bare client sending the If-None-Match ETagTransport adds (the terminal's share, with the
// header copy that adds it), and, with nginx, ETagTransport and the stack against a server that
// answers 304 (a file nginx serves; the bare client downloads it whole) instead of one that
// ignores If-None-Match (`return 200`).
//
// Machine speed drifts here by up to 2x between rounds of a few seconds, so `pinned`'s rounds of
// 5,000 requests compare poorly for a difference of a few percent. This one alternates blocks of
// 300 requests, bare then layered then layered then bare, and reports the median over blocks of
// each pair's ratio (time, and CPU of the whole process): drift cancels within a pair.
import Foundation
import Strata
import StrataPinning
import TestServer
import TLSTestServer

enum PinnedLayerCostBenchmark {
    private static let requestsPerBlock = 300

    static func run(_ options: BenchOptions) async throws {
        let blocks = options.positional.first.flatMap(Int.init) ?? (options.quick ? 4 : 80)
        let server = try await BenchServer.start(
            path: "/small", body: PinnedBenchmark.body, etag: PinnedBenchmark.etag, builtIn: options.builtInServer)
        var revalidating: NginxServer?
        do {
            // The same body as a file, which nginx revalidates: a 304 to a matching If-None-Match.
            if NginxServer.isInstalled, !options.builtInServer {
                revalidating = try await NginxServer.start(
                    http2: false,
                    directives: """
                        access_log off;
                        keepalive_requests 100000000;
                        keepalive_timeout 300s;
                        ssl_protocols TLSv1.3;
                        location = /small.json { default_type application/json; }
                        """,
                    files: ["small.json": Data(PinnedBenchmark.body.utf8)])
            }
            try await compare(
                blocks: blocks, server: server, revalidatingURL: revalidating?.url("/small.json"), options: options)
        } catch {
            await server.stop()
            await offCooperativePool { [revalidating] in revalidating?.stop() }
            throw error
        }
        await server.stop()
        await offCooperativePool { [revalidating] in revalidating?.stop() }
    }

    private static func compare(
        blocks: Int, server: BenchServer, revalidatingURL: URL?, options: BenchOptions
    ) async throws {
        let request = HTTPRequest(url: server.url, headers: ["Authorization": PinnedBenchmark.authorization])
        func pinning() throws -> PinningTransport {
            try BenchFixtures.pinningTransport(maxConnectionsPerHost: PinnedBenchmark.maxConnectionsPerHost)
        }
        let auth = InMemoryAuthService(accessToken: "token")
        let bare = try pinning()
        let passThrough = try pinning()
        var layered: [(name: String, transport: any Transport, request: HTTPRequest)] = [
            ("another bare PinningTransport (the noise floor)", try pinning(), request),
            // What any three layers cost, doing nothing: the floor under the stack's row.
            ("three pass-through layers", PassThroughLayer(PassThroughLayer(PassThroughLayer(passThrough))), request),
            // The terminal's own share of the stack's cost: the field it adds to every request.
            ("bare, sending If-None-Match as ETag does", ConditionalTerminal(inner: try pinning()), request),
            ("ReauthTransport", ReauthTransport(inner: try pinning(), authService: auth) {}, request),
            ("RetryTransport", RetryTransport(inner: try pinning()), request),
            ("ETagTransport (the server ignores If-None-Match)", ETagTransport(inner: try pinning()), request),
            ("Reauth → Retry → ETag → PinningTransport", PinnedBenchmark.stack(over: try pinning()), request),
        ]
        if let revalidatingURL {
            // Against bare GETs of the same file: the layer's 304s against full 200s.
            let fileRequest = HTTPRequest(url: revalidatingURL, headers: ["Authorization": PinnedBenchmark.authorization])
            layered += [
                ("ETagTransport (the server answers 304)", ETagTransport(inner: try pinning()), fileRequest),
                ("Reauth → Retry → ETag (the server answers 304)", PinnedBenchmark.stack(over: try pinning()), fileRequest),
            ]
        }
        layered = layered.filter { options.includes($0.name) }
        for row in layered {
            _ = try await measure("warm-up", transport: bare, request: row.request, total: 500, concurrency: 1)
            _ = try await measure("warm-up", transport: row.transport, request: row.request, total: 500, concurrency: 1)
            // A row named for 304s must be measuring them.
            if row.request.url == revalidatingURL {
                let source = try await row.transport.send(row.request).source
                guard source == .revalidated else {
                    throw CurlRun.Failure(description: "\(row.name): the server's answer was \(source), not a 304")
                }
            }
        }
        print(
            "Each layer over its own PinningTransport vs a bare one: sequential GETs over HTTP/1.1 to "
                + "\(server.name) on loopback TLS, \(blocks) pairs of \(requestsPerBlock)-request blocks, "
                + "medians of the pairs' ratios")
        print("layer".padded(to: 52) + "time ×".leftPadded(to: 9) + "CPU ×".leftPadded(to: 9))
        for (name, transport, request) in layered {
            var times: [Double] = []
            var cpu: [Double] = []
            for block in 0..<blocks {
                // Alternate which goes first, so neither always runs on a warmer machine.
                let order: [any Transport] = block.isMultiple(of: 2) ? [bare, transport] : [transport, bare]
                var seconds: [Double] = []
                var cpuNanoseconds: [Double] = []
                for client in order {
                    let cpuBefore = Measurement.processCPUNanoseconds
                    let run = try await measure(name, transport: client, request: request, total: requestsPerBlock, concurrency: 1)
                    seconds.append(run.seconds)
                    cpuNanoseconds.append(Measurement.processCPUNanoseconds - cpuBefore)
                }
                let layeredFirst = !block.isMultiple(of: 2)
                let (bareIndex, layeredIndex) = layeredFirst ? (1, 0) : (0, 1)
                times.append(seconds[layeredIndex] / seconds[bareIndex])
                cpu.append(cpuNanoseconds[layeredIndex] / cpuNanoseconds[bareIndex])
            }
            print(
                name.padded(to: 52) + formatted(Measurement.median(times), decimals: 3).leftPadded(to: 9)
                    + formatted(Measurement.median(cpu), decimals: 3).leftPadded(to: 9))
        }
    }
}

/// A layer that does nothing: each call goes straight to `inner`.
private struct PassThroughLayer: Transport {
    let inner: any Transport

    init(_ inner: any Transport) { self.inner = inner }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await inner.send(request)
    }

    func stream<Result: Sendable>(
        _ request: HTTPRequest, _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
    ) async throws -> Result {
        try await inner.stream(request, consume)
    }
}

/// A bare terminal sent what `ETagTransport` sends on a revalidation: the request with
/// `If-None-Match` (nginx's `return` ignores it, so the answer is the same `200`).
private struct ConditionalTerminal: Transport {
    let inner: any Transport

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var conditional = request
        conditional.headers["If-None-Match"] = PinnedBenchmark.etag
        return try await inner.send(conditional)
    }
}
