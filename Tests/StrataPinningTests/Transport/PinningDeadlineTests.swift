#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
@testable import StrataPinning
import StrataTesting
import Testing
import TestServer
import TLSTestServer

@Suite("PinningTransport honours the request's deadline")
struct PinningDeadlineTests {
    @Test("a deadline earlier than requestTimeout ends a pinned exchange with timedOut")
    func deadlineBeatsRequestTimeout() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/slow", response: .init(text: "late", delay: .seconds(30)))
        let transport = try Pinning.transport(configuration: .init(idleReadTimeout: .seconds(60), requestTimeout: .seconds(60)))
        let error = await Pinning.error {
            try await RequestDeadline.withTimeout(.milliseconds(300)) {
                try await transport.send(Pinning.get(server.url("/slow")))
            }
        }
        #expect((error as? TransportError)?.kind == .timedOut)
    }

    @Test("a pinned request whose deadline already passed opens no connection")
    func passedDeadlineConnectsNothing() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/a", response: .init(text: "a"))
        let transport = try Pinning.transport()
        let error = await Pinning.error {
            try await RequestDeadline.withTimeout(.zero) { try await transport.send(Pinning.get(server.url("/a"))) }
        }
        #expect((error as? TransportError)?.kind == .timedOut)
        #expect(server.http.connectionCount == 0)
    }
}
