#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
@testable import StrataPinning
import StrataTesting
import Testing
import TLSTestServer

@Suite("Connection threads are bounded process-wide, and the pool forgets hosts it no longer uses")
struct ConnectionThreadLimitTests {
    private func transport(threads: ConnectionThreadLimit) throws -> PinningTransport {
        let pins = try Pinning.pins(Fixtures.Pin.leafEC)
        return PinningTransport(
            inner: CannedRoutesTransport(routes: []), pinnedDomains: ["localhost": pins, "127.0.0.1": pins],
            trustRoots: try Pinning.privateCA(), configuration: .init(requestTimeout: .seconds(10)),
            clock: ContinuousClock(), threads: threads)
    }

    @Test("at the limit, an idle connection to another host is closed to make room")
    func idleConnectionMakesRoom() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/a", response: .init(text: "a"))
        let threads = ConnectionThreadLimit(maximum: 1)
        let transport = try transport(threads: threads)
        #expect(try await transport.send(Pinning.get(server.url("/a"))).text == "a")
        #expect(transport.poolCounts(host: "localhost", port: server.port).open == 1)
        #expect(try await transport.send(Pinning.get(server.url("/a", host: "127.0.0.1"))).text == "a")
        #expect(transport.poolCounts(host: "localhost", port: server.port).open == 0)
        #expect(threads.inUse == 1)
    }

    @Test("at the limit with every connection busy, a request for another host fails at once, naming the limit")
    func busyLimitFails() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        let gate = DispatchSemaphore(value: 0)
        let (arrived, arrival) = AsyncStream<Void>.makeStream()
        server.http.route("/hold") { _ in
            arrival.yield()
            gate.wait()
            return .init(text: "held")
        }
        let threads = ConnectionThreadLimit(maximum: 1)
        let transport = try transport(threads: threads)
        let hold = Task { try await transport.send(Pinning.get(server.url("/hold"))) }
        for await _ in arrived { break }
        let error = await Pinning.error { try await transport.send(Pinning.get(server.url("/hold", host: "127.0.0.1"))) }
        let failure = try #require(error as? TransportError)
        #expect(failure.kind == .cannotConnect)
        #expect(failure.message.contains("maxConnectionThreads"))
        gate.signal()
        #expect(try await hold.value.text == "held")
        #expect(threads.inUse <= 1)
    }

    @Test("a host whose connections all closed leaves no entry behind")
    func emptyHostEntriesRemoved() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/bye", response: .init(text: "bye", closeConnection: true))
        let threads = ConnectionThreadLimit(maximum: 4)
        let transport = try transport(threads: threads)
        for host in ["localhost", "127.0.0.1"] {
            #expect(try await transport.send(Pinning.get(server.url("/bye", host: host))).text == "bye")
        }
        #expect(transport.pooledHostCount == 0)
        #expect(threads.inUse == 0)
    }

    @Test("the process-wide limit is adjustable and refuses nonsense")
    func processWideSetting() {
        let original = PinningTransport.maxConnectionThreads
        defer { PinningTransport.maxConnectionThreads = original }
        PinningTransport.maxConnectionThreads = 3
        #expect(ConnectionThreadLimit.processWide.maximum == 3)
        PinningTransport.maxConnectionThreads = 0
        #expect(ConnectionThreadLimit.processWide.maximum == 1)
    }
}

@Suite("HTTP/2 connections count against the process-wide connection limit")
struct HTTP2ConnectionThreadLimitTests {
    /// Answers every request with 200 until the client closes.
    private static func server(closingAfterFirstResponse: Bool = false) throws -> ScriptedHTTP2Server {
        try ScriptedHTTP2Server { connection in
            connection.handshake()
            while let stream = connection.awaitRequests(1).first {
                connection.respond(stream: stream)
                if closingAfterFirstResponse { return }
            }
        }
    }

    private func transport(threads: ConnectionThreadLimit) throws -> PinningTransport {
        let pins = try Pinning.pins(Fixtures.Pin.leafEC)
        return PinningTransport(
            inner: CannedRoutesTransport(routes: []), pinnedDomains: ["localhost": pins, "127.0.0.1": pins],
            trustRoots: try Pinning.privateCA(), configuration: .init(requestTimeout: .seconds(10)),
            clock: ContinuousClock(), threads: threads)
    }

    /// Yields until `condition` holds (bounded; the connection's thread ends on its own).
    private func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<1_000_000 {
            if condition() { return true }
            await Task.yield()
        }
        return condition()
    }

    @Test("an HTTP/2 connection holds one unit while open (its slot's, handed over) and returns it when it closes")
    func holdsOneUnit() async throws {
        let server = try Self.server(closingAfterFirstResponse: true)
        let threads = ConnectionThreadLimit(maximum: 4)
        let transport = try transport(threads: threads)
        #expect(try await transport.send(Pinning.get(server.url("/"))).statusCode == 200)
        #expect(await eventually { threads.inUse == 0 })
        #expect(await eventually { transport.http2Counts(host: "localhost", port: server.port).connections == 0 })
    }

    @Test(
        "the HTTP/2 pool keeps no entry for hosts it has nothing for: closed HTTP/2 connections, an HTTP/1.1 host whose connection closed")
    func forgetsHostsItNoLongerUses() async throws {
        let http2 = try Self.server(closingAfterFirstResponse: true)
        let http1 = try TLSLoopbackServer(identity: .leafOnly)
        http1.http.route("/bye", response: .init(text: "bye", closeConnection: true))
        let transport = try transport(threads: ConnectionThreadLimit(maximum: 8))
        for host in ["localhost", "127.0.0.1"] {
            #expect(try await transport.send(Pinning.get(http2.url("/", host: host))).statusCode == 200)
            #expect(try await transport.send(Pinning.get(http1.url("/bye", host: host))).text == "bye")
        }
        #expect(await eventually { transport.http2HostCount == 0 })
        #expect(transport.pooledHostCount == 0)
    }

    @Test("a new connection that turns out to be HTTP/2 keeps its slot's unit: no other connection can take it in between")
    func handshakenHTTP2ConnectionKeepsItsUnit() async throws {
        let server = try Self.server()
        // A competing connection that takes the first unit given back, the instant it is free.
        let stolen = LockedValue(false)
        let threads = ConnectionThreadLimit(maximum: 1) { threads in
            let steal = stolen.withLock { stolen in
                defer { stolen = true }
                return !stolen
            }
            if steal { _ = threads.tryAcquire() }
        }
        let transport = try transport(threads: threads)
        #expect(try await transport.send(Pinning.get(server.url("/"))).statusCode == 200)
        #expect(transport.http2Counts(host: "localhost", port: server.port).connections == 1)
        #expect(stolen.withLock { $0 } == false)
        #expect(threads.inUse == 1)
    }

    @Test("at the limit, an idle HTTP/2 connection is closed to make room for a connection to another host")
    func idleHTTP2ConnectionMakesRoom() async throws {
        let server = try Self.server()
        let threads = ConnectionThreadLimit(maximum: 1)
        let transport = try transport(threads: threads)
        #expect(try await transport.send(Pinning.get(server.url("/"))).statusCode == 200)
        #expect(threads.inUse == 1)
        #expect(try await transport.send(Pinning.get(server.url("/", host: "127.0.0.1"))).statusCode == 200)
        #expect(transport.http2Counts(host: "localhost", port: server.port).connections == 0)
        #expect(transport.http2Counts(host: "127.0.0.1", port: server.port).connections == 1)
        #expect(await eventually { threads.inUse == 1 })
    }
}
