import Strata
@testable import StrataPinning
import Testing

/// `SSLConnection`, the one owner of a client `SSL *`: its steps come out as Swift values and its
/// failures as typed errors, so the TLS code above it needs no OpenSSL call.
@Suite("SSLConnection: OpenSSL's TLS state machine as Swift values")
struct SSLConnectionTests {
    @Test("the first handshake step asks for the server's bytes and queues a ClientHello record to send")
    func firstStepQueuesClientHello() throws {
        let connection = try SSLConnection(
            context: TLSClientContext(roots: Pinning.privateCA()), host: "localhost",
            identity: nil)
        #expect(connection.handshake() == .wantRead)
        #expect(connection.pendingCiphertext > 0)
        var record = [UInt8](repeating: 0, count: 16 * 1024)
        let count = record.withUnsafeMutableBytes { connection.takeCiphertext(into: $0) }
        // RFC 8446 §5.1: a handshake record (content type 22) carrying a client_hello (type 1).
        #expect(count > 5 && record[0] == 22 && record[5] == 1)
        #expect(connection.pendingCiphertext == 0)
        #expect(record.withUnsafeMutableBytes { connection.takeCiphertext(into: $0) } == 0)
    }

    @Test("bytes that are not TLS fail the handshake step, and the failure is a TLS TransportError naming the peer")
    func garbageFailsAsTypedError() throws {
        let connection = try SSLConnection(
            context: TLSClientContext(roots: Pinning.privateCA()), host: "localhost",
            identity: nil)
        #expect(connection.handshake() == .wantRead)
        let garbage = Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8)
        try garbage.withUnsafeBytes { try connection.giveCiphertext($0) }
        guard case let .failed(code) = connection.handshake() else {
            Issue.record("a non-TLS reply must fail the handshake")
            return
        }
        let failure = try #require(connection.handshakeFailure(code: code, peer: "127.0.0.1:443") as? TransportError)
        #expect(failure.kind == .tls)
        #expect(failure.message.contains("127.0.0.1:443"))
    }

    @Test("a host that is not canonical is refused when the session is made, before any byte exists to send")
    func nonCanonicalHostRefused() throws {
        let context = try TLSClientContext(roots: Pinning.privateCA())
        #expect(throws: ServerTrustError.self) {
            _ = try SSLConnection(context: context, host: "LOCALHOST", identity: nil)
        }
    }
}
