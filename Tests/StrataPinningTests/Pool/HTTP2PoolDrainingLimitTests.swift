import Foundation
import Strata
@testable import StrataPinning
import StrataTesting
import Testing
import TestSupport
import TLSTestServer

/// A server that answers each connection's first stream, sends GOAWAY and then trickles the body:
/// its connections stop taking streams at once but keep their threads, and their units of the
/// process-wide connection limit, until the request deadline. They must keep their per-host
/// places too, or every request would open another one and starve every other pinned host.
@Suite("HTTP2Pool's per-host limit counts connections draining after a GOAWAY")
struct HTTP2PoolDrainingLimitTests {
    /// The per-host limit under test.
    private static let maxConnectionsPerHost = 2
    /// Far above the per-host limit, far below the requests sent: without the bound, the hostile
    /// host alone could take every unit.
    private static let threadLimit = 8
    private static let concurrentRequests = 20
    /// How often the server sends one more body byte.
    private static let trickleInterval: useconds_t = 50_000
    /// A hang guard for the server's script: it stops trickling once the client is gone, and
    /// after this many bytes (30 s, far past the test) in any case.
    private static let trickleLimit = 600

    /// Answers its first stream with a head, sends GOAWAY(last stream = that one), and trickles
    /// DATA on it until the client leaves; tells `goneAway` once the GOAWAY is out.
    private static func drainingServer(goneAway: AsyncStream<Void>.Continuation) throws -> ScriptedHTTP2Server {
        try ScriptedHTTP2Server { connection in
            connection.handshake()
            guard let first = connection.awaitRequests(1).first else { return }
            connection.write(.headers(stream: first, [(":status", "200")]), .goAway(lastStream: first, code: 0))
            goneAway.yield()
            for _ in 0..<trickleLimit {
                guard connection.write(.data(stream: first, Array(".".utf8))) else { return }
                usleep(trickleInterval)
            }
        }
    }

    /// Answers every request with `body` until the client closes.
    private static func answeringServer(body: String) throws -> ScriptedHTTP2Server {
        try ScriptedHTTP2Server { connection in
            connection.handshake()
            while let stream = connection.awaitRequests(1).first { connection.respond(stream: stream, body: body) }
        }
    }

    /// Sends `count` GETs at once, each bound by `timeout`; returns each one's outcome.
    private static func concurrentGets(
        _ count: Int, timeout: Duration, transport: PinningTransport,
        url: URL
    ) async -> [Result<HTTPResponse, any Error>] {
        await withTaskGroup(of: Result<HTTPResponse, any Error>.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do {
                        return .success(try await RequestDeadline.withTimeout(timeout) { try await transport.send(Pinning.get(url)) })
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// Yields until `condition` holds (bounded; connection threads end on their own).
    private static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<1_000_000 {
            if condition() { return true }
            await Task.yield()
        }
        return condition()
    }

    @Test(
        "a server that sends GOAWAY after every first stream gets no more connections than the per-host limit: 20 more requests wait for a draining one to end and time out, and another pinned host still connects meanwhile"
    )
    func drainingConnectionsKeepTheirPlaces() async throws {
        let (goneAway, goingAway) = AsyncStream<Void>.makeStream()
        let hostile = try Self.drainingServer(goneAway: goingAway)
        let other = try Self.answeringServer(body: "other host")
        let threads = ConnectionThreadLimit(maximum: Self.threadLimit)
        let pins = try Pinning.pins(Fixtures.Pin.leafEC)
        // The draining streams last until the test cancels them, so no place frees up while the
        // others wait, however slowly a loaded machine runs them. No PING and no read timeout.
        let configuration = PinningTransport.Configuration(
            idleReadTimeout: .seconds(3600), requestTimeout: .seconds(3600),
            maxConnectionsPerHost: Self.maxConnectionsPerHost, idleConnectionTimeout: .milliseconds(50),
            http2PingInterval: .seconds(3600))
        let transport = PinningTransport(
            inner: CannedRoutesTransport(routes: []),
            pinnedDomains: ["localhost": pins, "127.0.0.1": pins],
            trustRoots: try Pinning.privateCA(), configuration: configuration,
            clock: ContinuousClock(), threads: threads)
        let url = hostile.url("/")

        // Two requests take both places: each ends up as the first stream of a connection that
        // then goes away (the second one's first stream is refused by the first GOAWAY and resent).
        let occupying = (0..<Self.maxConnectionsPerHost).map { _ in
            Task { await Pinning.error { try await transport.send(Pinning.get(url)) } }
        }
        // A hang guard: the wait below ends when the occupiers do, however many GOAWAYs came.
        Task {
            for occupier in occupying { _ = await occupier.value }
            goingAway.finish()
        }
        var drained = 0
        for await _ in goneAway.prefix(Self.maxConnectionsPerHost) { drained += 1 }
        try #require(drained == Self.maxConnectionsPerHost)

        let waiting = Task {
            await Self.concurrentGets(Self.concurrentRequests, timeout: .milliseconds(300), transport: transport, url: url)
        }
        let answer = try await transport.send(Pinning.get(other.url("/", host: "127.0.0.1")))
        #expect(answer.text == "other host")
        // The hostile host's draining connections and the other host's one: nothing else.
        #expect(threads.inUse <= Self.maxConnectionsPerHost + 1)

        let failures = await waiting.value.compactMap { result -> TransportError? in
            if case let .failure(error) = result { error as? TransportError } else { nil }
        }
        #expect(failures.count == Self.concurrentRequests)
        #expect(failures.allSatisfy { $0.kind == .timedOut }, "\(failures.map(\.kind))")
        #expect(hostile.connectionCount == Self.maxConnectionsPerHost)
        // The callers holding the places give up: their connections end and hand their units back.
        for occupier in occupying { occupier.cancel() }
        for occupier in occupying { #expect(await occupier.value != nil) }
        // Ended connections are forgotten, and gave their units back before: only the other
        // host's connection may still hold one.
        #expect(await Self.eventually { transport.http2Counts(host: "localhost", port: hostile.port).connections == 0 })
        #expect(threads.inUse <= 1)
    }
}
