import Foundation
@testable import Strata
import StrataTesting
import Testing

@Suite("ReauthTransport.stream: a 401 is answered before the consumer sees anything")
struct ReauthStreamTests {
    static let url = URL(string: "https://api.example.com/me")!

    static func request(token: String) -> HTTPRequest {
        HTTPRequest(url: url, headers: ["Authorization": "Bearer \(token)"])
    }

    @Test("a 401 then a 200 reach the consumer once, with the resend's body")
    func refreshedBeforeConsume() async throws {
        let auth = InMemoryAuthService(accessToken: "old")
        let inner = ScriptedStreamTransport([.status(401, body: "expired"), .status(200, body: "me")])
        let transport = ReauthTransport(inner: inner, authService: auth) { await auth.setAccessToken("new") }
        let calls = LockedValue(0)
        let text = try await transport.stream(Self.request(token: "old")) { head, body in
            calls.withLock { $0 += 1 }
            #expect(head.statusCode == 200)
            return String(decoding: try await body.collect(upTo: 100), as: UTF8.self)
        }
        #expect(text == "me")
        #expect(calls.withLock { $0 } == 1)
        #expect(inner.requests.map { $0.headers["Authorization"] } == ["Bearer old", "Bearer new"])
    }

    /// Signs the user out while the request is in flight, then answers as `inner` does.
    struct SigningOut: Transport {
        let inner: ScriptedStreamTransport
        let auth: InMemoryAuthService
        func send(_ request: HTTPRequest) async throws -> HTTPResponse { try await inner.send(request) }
        func stream<Result: Sendable>(
            _ request: HTTPRequest,
            _ consume: (HTTPResponseHead, HTTPBody) async throws -> Result
        ) async throws -> Result {
            await auth.setAccessToken(nil)
            return try await inner.stream(request, consume)
        }
    }

    @Test("a 401 that stands (signed out while in flight) reaches the consumer once, with its body")
    func unauthorizedStands() async throws {
        let auth = InMemoryAuthService(accessToken: "old")
        let inner = ScriptedStreamTransport([.status(401, body: "sign in again")])
        let transport = ReauthTransport(inner: SigningOut(inner: inner, auth: auth), authService: auth) {}
        let calls = LockedValue(0)
        let answer = try await transport.stream(Self.request(token: "old")) { head, body in
            calls.withLock { $0 += 1 }
            return (head.statusCode, String(decoding: try await body.collect(upTo: 100), as: UTF8.self))
        }
        #expect(answer.0 == 401)
        #expect(answer.1 == "sign in again")
        #expect(calls.withLock { $0 } == 1)
        #expect(inner.requests.count == 1)
    }

    @Test("a single-pass upload that gets a 401 is not resent")
    func singlePassNotResent() async throws {
        let auth = InMemoryAuthService(accessToken: "old")
        let inner = ScriptedStreamTransport([.status(401), .status(200)])
        let transport = ReauthTransport(inner: inner, authService: auth) { await auth.setAccessToken("new") }
        var request = Self.request(token: "old")
        request.method = .put
        request.body = HTTPBody(AsyncStream<ArraySlice<UInt8>> { $0.finish() }, length: 0)
        let status = try await transport.stream(request) { head, _ in head.statusCode }
        #expect(status == 401)
        #expect(inner.requests.count == 1)
    }
}
