#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataConnect
@testable import StrataPinning
import Testing
import TestServer
import TestSupport
import TLSTestServer

@Suite("Happy eyeballs: a name with IPv6 and IPv4 addresses reaches whichever one listens")
struct DualStackTests {
    /// `api.strata.test` is on the fixture leaves, so any address may serve it.
    static let host = "api.strata.test"

    static func transport(
        _ resolver: ScriptedResolver, attemptDelay: Duration = .milliseconds(250),
        connectTimeout: Duration = .seconds(10)
    ) throws -> PinningTransport {
        try Pinning.transport(
            extra: [host: Pinning.pins(Fixtures.Pin.leafEC)],
            configuration: .init(
                connectTimeout: connectTimeout, requestTimeout: .seconds(30),
                connectionAttemptDelay: attemptDelay),
            resolver: resolver)
    }

    static func url(_ port: Int) -> URL { URL(string: "https://\(host):\(port)/hello")! }

    @Test("::1 first and only 127.0.0.1 listening: the refused IPv6 attempt leads straight to IPv4")
    func ipv6RefusedIPv4Listens() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/hello", response: .init(text: "over IPv4"))
        // A bound port that refuses (the same number on ::1 could be another test's server).
        let refusing = try RefusingPort(ipv6: true)
        let events = PinningEventLog()
        let resolver = ScriptedResolver { _, port in [("::1", refusing.port), ("127.0.0.1", port)] }
        let transport = events.observing(try Self.transport(resolver))
        let response = try await transport.send(Pinning.get(Self.url(server.port)))
        #expect(response.text == "over IPv4")
        #expect(events.connectedAddresses.map(\.address) == ["127.0.0.1"])
        #expect(events.connectedAddresses.map(\.attempts) == [2])
    }

    @Test("127.0.0.1 first and only ::1 listening: IPv6 is reached")
    func ipv4RefusedIPv6Listens() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly, ipv6: true)
        server.http.route("/hello", response: .init(text: "over IPv6"))
        let refusing = try RefusingPort()
        let events = PinningEventLog()
        let pinning = try Self.transport(ScriptedResolver { _, port in [("127.0.0.1", refusing.port), ("::1", port)] })
        let transport = events.observing(pinning)
        let response = try await transport.send(Pinning.get(Self.url(server.port)))
        #expect(response.text == "over IPv6")
        #expect(events.connectedAddresses.map(\.address) == ["::1"])
        // The pool keys the connection by name and port, whatever address it reached.
        #expect(pinning.poolCounts(host: Self.host, port: server.port).open == 1)
    }

    @Test("an IPv6 address that never answers gets a head start, then IPv4 joins and wins within the connect timeout")
    func silentIPv6() async throws {
        let silent = try SilentPort(ipv6: true)
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/hello", response: .init(text: "raced"))
        let events = PinningEventLog()
        // Tried one after the other, the silent address would hold the request until the connect
        // timeout (20 s) and fail it; raced, IPv4 starts 20 ms later and connects.
        let resolver = ScriptedResolver { _, port in [("::1", silent.port), ("127.0.0.1", port)] }
        let pinning = try Self.transport(
            resolver, attemptDelay: .milliseconds(20),
            connectTimeout: TestTimeScale.scaled(.seconds(20)))
        let transport = events.observing(pinning)
        let response = try await transport.send(Pinning.get(Self.url(server.port)))
        #expect(response.text == "raced")
        #expect(events.connectedAddresses.map(\.address) == ["127.0.0.1"])
        #expect(events.connectedAddresses.map(\.attempts) == [2])
        #expect(pinning.poolCounts(host: Self.host, port: server.port).open == 1)
    }

    @Test("when no address listens the error names every address tried")
    func nothingListens() async throws {
        let refusing = try RefusingPort()
        let transport = try Self.transport(ScriptedResolver { _, _ in [("::1", refusing.port), ("127.0.0.1", refusing.port)] })
        let error = await Pinning.error { try await transport.send(Pinning.get(Self.url(refusing.port))) }
        let failure = try #require(error as? TransportError)
        #expect(failure.kind == .cannotConnect)
        #expect(failure.message.contains("::1 ("))
        #expect(failure.message.contains("127.0.0.1 ("))
    }

    /// Whether this machine's `localhost` has both an IPv6 and an IPv4 address (Debian's
    /// default /etc/hosts maps `::1` too; some containers map only 127.0.0.1).
    static let localhostIsDualStack: Bool = {
        let families = Set(((try? SystemHostNameResolver().resolve("localhost", port: 443)) ?? []).map(\.family))
        return families.count == 2
    }()

    @Test("the system's localhost reaches a server listening on 127.0.0.1 only")
    func localhostIPv4() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/hello", response: .init(text: "v4"))
        let events = PinningEventLog()
        let transport = events.observing(try Pinning.transport())
        #expect(try await transport.send(Pinning.get(server.url("/hello"))).text == "v4")
        #expect(events.connectedAddresses.map(\.address) == ["127.0.0.1"])
    }

    // Needs /etc/hosts to map localhost to ::1 as well; where it maps only 127.0.0.1 there is
    // no IPv6 address to reach, and the scripted-resolver tests above cover the racing.
    @Test(
        "the system's localhost reaches a server listening on ::1 only, when /etc/hosts maps localhost to both",
        .enabled(if: localhostIsDualStack, "localhost does not resolve to both ::1 and 127.0.0.1 here"))
    func localhostIPv6() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly, ipv6: true)
        server.http.route("/hello", response: .init(text: "v6"))
        let events = PinningEventLog()
        let transport = events.observing(try Pinning.transport())
        #expect(try await transport.send(Pinning.get(server.url("/hello"))).text == "v6")
        #expect(events.connectedAddresses.map(\.address) == ["::1"])
    }
}
