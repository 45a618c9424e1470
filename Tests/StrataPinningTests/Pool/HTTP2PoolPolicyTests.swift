import Strata
@testable import StrataPinning
import Testing

@Suite("HTTP2Pool's routing policy and the HTTP/2 retry rule")
struct HTTP2PoolPolicyTests {
    typealias Load = HTTP2Pool.Load

    private static func decide(
        _ loads: [Load], connecting: Int = 0, http1: Bool = false, http2: Bool = true,
        max: Int = 8
    ) -> HTTP2Pool.Decision {
        HTTP2Pool.decide(loads: loads, connecting: connecting, speaksHTTP1: http1, speaksHTTP2: http2, maxConnections: max)
    }

    @Test("a new host opens one connection; while its protocol is unknown, others wait for it")
    func unknownHost() {
        #expect(Self.decide([], http2: false) == .connect)
        #expect(Self.decide([], connecting: 1, http2: false) == .wait)
    }

    @Test(
        "a new connection assumes the fewest streams the host's other connections allow until its own SETTINGS arrive (at least 1, at most 100)"
    )
    func assumedLimitOfANewConnection() {
        #expect(HTTP2Pool.assumedMaxConcurrentStreams(learned: []) == 100)
        #expect(HTTP2Pool.assumedMaxConcurrentStreams(learned: [2]) == 2)
        #expect(HTTP2Pool.assumedMaxConcurrentStreams(learned: [100, 2, 50]) == 2)
        #expect(HTTP2Pool.assumedMaxConcurrentStreams(learned: [0]) == 1)
        #expect(HTTP2Pool.assumedMaxConcurrentStreams(learned: [1_000]) == 100)
    }

    @Test("streams pack onto the oldest connection with room below the server's limit")
    func packsStreams() {
        let loads = [
            Load(reserved: 100, maxConcurrentStreams: 100, accepting: true),
            Load(reserved: 3, maxConcurrentStreams: 100, accepting: true),
            Load(reserved: 0, maxConcurrentStreams: 100, accepting: true),
        ]
        #expect(Self.decide(loads) == .use(1))
    }

    @Test("when every connection is at the server's limit, one more opens, one at a time, up to the per-host limit")
    func opensAnotherWhenFull() {
        let full = Load(reserved: 2, maxConcurrentStreams: 2, accepting: true)
        #expect(Self.decide([full]) == .connect)
        #expect(Self.decide([full], connecting: 1) == .useBeyondLimit(0))
        let lighter = Load(reserved: 3, maxConcurrentStreams: 2, accepting: true)
        #expect(Self.decide([Load(reserved: 5, maxConcurrentStreams: 2, accepting: true), lighter], max: 2) == .useBeyondLimit(1))
    }

    @Test(
        "connections that stopped accepting (GOAWAY) are never chosen; with none left a new one opens or the request waits for the one opening"
    )
    func skipsGoingAway() {
        let goingAway = Load(reserved: 0, maxConcurrentStreams: 100, accepting: false)
        #expect(Self.decide([goingAway]) == .connect)
        #expect(Self.decide([goingAway], connecting: 1) == .wait)
    }

    @Test("connections draining after a GOAWAY keep their place until they end: at the per-host limit a request waits, it opens nothing")
    func drainingConnectionsHoldTheirPlace() {
        let draining = Load(reserved: 1, maxConcurrentStreams: 100, accepting: false)
        #expect(Self.decide([draining], max: 1) == .wait)
        #expect(Self.decide([draining, draining], max: 2) == .wait)
        #expect(Self.decide([draining], max: 2) == .connect)
        let full = Load(reserved: 2, maxConcurrentStreams: 2, accepting: true)
        #expect(Self.decide([draining, full], max: 2) == .useBeyondLimit(1))
        #expect(Self.decide([draining, full], max: 3) == .connect)
    }

    @Test("a host that also answered over HTTP/1.1 opens no further connection while draining HTTP/2 ones fill its places")
    func http1HostAtLimitWaits() {
        let draining = Load(reserved: 1, maxConcurrentStreams: 100, accepting: false)
        #expect(Self.decide([draining, draining], http1: true, max: 2) == .wait)
        #expect(Self.decide([draining], http1: true, max: 2) == .http1)
    }

    @Test("a host that answered over HTTP/1.1 goes to the HTTP/1.1 pool unless an HTTP/2 connection still accepts")
    func http1Host() {
        #expect(Self.decide([], http1: true, http2: false) == .http1)
        #expect(Self.decide([Load(reserved: 0, maxConcurrentStreams: 100, accepting: true)], http1: true) == .use(0))
    }

    private static func failure(
        unprocessed: Bool = false, connectionFailed: Bool = false,
        received: Bool = false
    ) -> HTTP2StreamFailure {
        HTTP2StreamFailure(
            error: TransportError(.connectionLost), unprocessed: unprocessed,
            receivedResponseBytes: received, connectionFailed: connectionFailed)
    }

    @Test("unprocessed requests are retried whatever their method, a bounded number of times")
    func retriesUnprocessed() {
        #expect(PinnedClient.shouldRetry(Self.failure(unprocessed: true), method: .post, reused: false, retries: 0))
        #expect(PinnedClient.shouldRetry(Self.failure(unprocessed: true), method: .post, reused: true, retries: 2))
        #expect(
            !PinnedClient.shouldRetry(
                Self.failure(unprocessed: true), method: .get, reused: true,
                retries: PinnedClient.maxUnprocessedRetries))
    }

    @Test("a dead reused connection retries an idempotent request once, when no response byte arrived")
    func retriesFateUnknownOnce() {
        let dead = Self.failure(connectionFailed: true)
        #expect(PinnedClient.shouldRetry(dead, method: .get, reused: true, retries: 0))
        #expect(!PinnedClient.shouldRetry(dead, method: .get, reused: true, retries: 1))
        #expect(!PinnedClient.shouldRetry(dead, method: .post, reused: true, retries: 0))
        #expect(!PinnedClient.shouldRetry(dead, method: .get, reused: false, retries: 0))
        #expect(
            !PinnedClient.shouldRetry(
                Self.failure(connectionFailed: true, received: true), method: .get, reused: true,
                retries: 0))
        #expect(!PinnedClient.shouldRetry(Self.failure(), method: .get, reused: true, retries: 0))
    }
}
