// `strata-bench pinned-layers [blocks]`: what each layer costs over the network, not over an
// in-memory terminal: each layer alone, and the README's stack, over its own PinningTransport,
// against a bare PinningTransport, sequential GETs over HTTP/1.1 to nginx on loopback TLS.
//
// Machine speed drifts here by up to 2x between rounds of a few seconds, so `pinned`'s rounds of
// 5,000 requests compare poorly for a difference of a few percent. This one alternates blocks of
// 300 requests, bare then layered then layered then bare, and reports the median over blocks of
// each pair's ratio (time, and CPU of the whole process): drift cancels within a pair.
import Foundation
import Strata
import StrataPinning

enum PinnedLayerCostBenchmark {
    private static let requestsPerBlock = 300

    static func run(_ options: BenchOptions) async throws {
        let blocks = options.positional.first.flatMap(Int.init) ?? (options.quick ? 4 : 80)
        let server = try await BenchServer.start(
            path: "/small", body: PinnedBenchmark.body, etag: PinnedBenchmark.etag, builtIn: options.builtInServer)
        do {
            try await compare(blocks: blocks, server: server, options: options)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    private static func compare(blocks: Int, server: BenchServer, options: BenchOptions) async throws {
        let request = HTTPRequest(url: server.url, headers: ["Authorization": PinnedBenchmark.authorization])
        func pinning() throws -> PinningTransport {
            try BenchFixtures.pinningTransport(maxConnectionsPerHost: PinnedBenchmark.maxConnectionsPerHost)
        }
        let auth = InMemoryAuthService(accessToken: "token")
        let bare = try pinning()
        let layered: [(String, any Transport)] = [
            ("another bare PinningTransport (the noise floor)", try pinning()),
            ("ReauthTransport", ReauthTransport(inner: try pinning(), authService: auth) {}),
            ("RetryTransport", RetryTransport(inner: try pinning())),
            ("ETagTransport (the server ignores If-None-Match)", ETagTransport(inner: try pinning())),
            ("Reauth → Retry → ETag → PinningTransport", PinnedBenchmark.stack(over: try pinning())),
        ].filter { options.includes($0.0) }
        for transport in [bare] + layered.map(\.1) {
            _ = try await measure("warm-up", transport: transport, request: request, total: 500, concurrency: 1)
        }
        print(
            "Each layer over its own PinningTransport vs a bare one: sequential GETs over HTTP/1.1 to "
                + "\(server.name) on loopback TLS, \(blocks) pairs of \(requestsPerBlock)-request blocks, "
                + "medians of the pairs' ratios")
        print("layer".padded(to: 52) + "time ×".leftPadded(to: 9) + "CPU ×".leftPadded(to: 9))
        for (name, transport) in layered {
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
