#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
@testable import StrataPinning
import Testing
import TLSTestServer

@Suite("A body delimited by the connection's close counts only when TLS says the close was the server's")
struct CloseNotifyTests {
    private static let closeDelimited = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nall of it"

    @Test("EOF without close_notify ends a close-delimited body as connectionLost, saying why and how to opt in")
    func truncationRefused() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly, sendsCloseNotify: false)
        server.http.route("/body", response: .raw(Self.closeDelimited))
        let transport = try Pinning.transport()
        let error = await Pinning.error { try await transport.send(Pinning.get(server.url("/body"))) }
        let failure = try #require(error as? TransportError)
        #expect(failure.kind == .connectionLost)
        #expect(failure.message.contains("close_notify"))
        #expect(failure.message.contains("acceptsBodyEndWithoutCloseNotify"))
    }

    @Test("a server that sends close_notify delivers its close-delimited body")
    func cleanCloseAccepted() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly)
        server.http.route("/body", response: .raw(Self.closeDelimited))
        let response = try await Pinning.transport().send(Pinning.get(server.url("/body")))
        #expect(response.text == "all of it")
    }

    @Test("the opt-in accepts a sloppy server's close-delimited body")
    func optIn() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly, sendsCloseNotify: false)
        server.http.route("/body", response: .raw(Self.closeDelimited))
        let transport = try Pinning.transport(
            configuration: .init(
                requestTimeout: .seconds(10),
                acceptsBodyEndWithoutCloseNotify: true))
        #expect(try await transport.send(Pinning.get(server.url("/body"))).text == "all of it")
    }

    @Test("bodies framed by Content-Length need no close_notify: their end is known")
    func framedBodyUnaffected() async throws {
        let server = try TLSLoopbackServer(identity: .leafOnly, sendsCloseNotify: false)
        server.http.route("/body", response: .init(text: "framed", closeConnection: true))
        #expect(try await Pinning.transport().send(Pinning.get(server.url("/body"))).text == "framed")
    }
}
