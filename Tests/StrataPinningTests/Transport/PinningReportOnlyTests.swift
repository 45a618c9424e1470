#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataConnect
@testable import StrataPinning
import StrataTesting
import Testing
import TLSTestServer

@Suite("Report-only pins: a mismatch is reported with the served chain's pins and the request proceeds")
struct PinningReportOnlyTests {
    static func transport(
        _ pins: String..., httpVersion: HTTPVersionPolicy = .preferHTTP2,
        enforced: [String: any ServerTrustEvaluator] = [:],
        resolver: any HostNameResolver = SystemHostNameResolver()
    ) throws -> PinningTransport {
        var domains = enforced
        domains["localhost"] = ReportOnlyEvaluator(try PublicKeyPinningEvaluator(pins: pins))
        return PinningTransport(
            inner: CannedRoutesTransport(routes: []), pinnedDomains: domains,
            trustRoots: try Pinning.privateCA(),
            configuration: .init(requestTimeout: .seconds(30), httpVersion: httpVersion),
            clock: ContinuousClock(), resolver: resolver)
    }

    @Test("a mismatch is reported once per connection, as a warning with the chain's pins, and every request is served")
    func mismatchReported() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/hello", response: .init(text: "served"))
        let events = PinningEventLog()
        let transport = events.observing(try Self.transport(Fixtures.Pin.attackerLeaf))
        for _ in 0..<2 {
            #expect(try await transport.send(Pinning.get(server.url("/hello"))).text == "served")
        }
        #expect(events.reportedMismatches.map(\.servedPins) == [[Fixtures.Pin.leafEC, Fixtures.Pin.ca]])
        #expect(events.reportedMismatches.first?.failure.contains(Fixtures.Pin.attackerLeaf) == true)
        #expect(events.trust.map(\.failure) == [nil])
        let reported = try #require(events.all.first { $0.name == "pinning.report-only-mismatch" })
        #expect(reported.logLevel == .warning)
        #expect(reported.message(redactedBy: Redaction()).contains("request allowed"))
        #expect(server.http.requestCount == 2)
    }

    @Test("a mismatch found while nobody observed is reported to the first observed request reusing the connection")
    func mismatchReportedOnReuse() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/hello", response: .init(text: "served"))
        let transport = try Self.transport(Fixtures.Pin.attackerLeaf)
        #expect(try await transport.send(Pinning.get(server.url("/hello"))).text == "served")
        let events = PinningEventLog()
        let observed = events.observing(transport)
        for _ in 0..<2 {
            #expect(try await observed.send(Pinning.get(server.url("/hello"))).text == "served")
        }
        #expect(events.reusedCount == 2)
        #expect(events.openedCount == 0)
        #expect(events.reportedMismatches.map(\.servedPins) == [[Fixtures.Pin.leafEC, Fixtures.Pin.ca]])
    }

    @Test("matching report-only pins report nothing and say which pin matched")
    func matchReportsNothing() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/hello", response: .init(text: "served"))
        let events = PinningEventLog()
        let transport = events.observing(try Self.transport(Fixtures.Pin.ca))
        #expect(try await transport.send(Pinning.get(server.url("/hello"))).text == "served")
        #expect(events.reportedMismatches.isEmpty)
        #expect(events.trust.map(\.matchedPin) == [Fixtures.Pin.ca])
    }

    @Test("beside a report-only host, the same mismatching pins enforced for another host still refuse it")
    func enforcedHostStillRefused() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/hello", response: .init(text: "served"))
        // Both names reach the same server, whose leaf names both: only the evaluator differs.
        let resolver = ScriptedResolver { _, port in [("127.0.0.1", port)] }
        let events = PinningEventLog()
        let transport = events.observing(
            try Self.transport(
                Fixtures.Pin.attackerLeaf, enforced: ["api.strata.test": try Pinning.pins(Fixtures.Pin.attackerLeaf)],
                resolver: resolver))
        #expect(try await transport.send(Pinning.get(server.url("/hello"))).text == "served")
        let enforcedURL = URL(string: "https://api.strata.test:\(server.port)/hello")!
        let error = await Pinning.error { try await transport.send(Pinning.get(enforcedURL)) }
        let failure = try #require(error as? TransportError)
        #expect(failure.kind == .tls)
        #expect(failure.serverTrustError != nil)
        #expect(events.reportedMismatches.count == 1)
        #expect(server.http.requestCount == 1)
    }

    @Test(
        "an untrusted, expired or misnamed chain is still refused, before any request byte",
        arguments: [TLSLoopbackServer.Identity.forgedChain, .expired, .wrongHost, .selfSigned])
    func untrustedStillRefused(identity: TLSLoopbackServer.Identity) async throws {
        let server = try TLSLoopbackServer(identity: identity)
        server.http.route("/hello", response: .init(text: "must not be served"))
        let events = PinningEventLog()
        let transport = events.observing(try Self.transport(Fixtures.Pin.attackerLeaf))
        let error = await Pinning.error { try await transport.send(Pinning.get(server.url("/hello"))) }
        let failure = try #require(error as? TransportError)
        #expect(failure.kind == .tls)
        #expect(failure.serverTrustError != nil)
        #expect(events.reportedMismatches.isEmpty)
        #expect(server.http.requestCount == 0)
    }

    @Test(
        "over HTTP/2 the mismatch is reported the same way and the stream is served",
        .enabled(if: NginxServer.isInstalled, Comment(rawValue: NginxServer.missing)))
    func overHTTP2() async throws {
        let server = try await NginxServer.start(directives: #"location / { return 200 "h2 served"; }"#)
        let events = PinningEventLog()
        let transport = events.observing(try Self.transport(Fixtures.Pin.attackerLeaf))
        #expect(try await transport.send(Pinning.get(server.url("/"))).text == "h2 served")
        #expect(events.http2Responses == 1)
        #expect(events.reportedMismatches.map(\.servedPins) == [[Fixtures.Pin.leafEC, Fixtures.Pin.ca]])
    }
}
