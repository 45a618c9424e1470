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
        return PinningTransport(inner: CannedRoutesTransport(routes: []), pinnedDomains: ["localhost": pins, "127.0.0.1": pins],
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
