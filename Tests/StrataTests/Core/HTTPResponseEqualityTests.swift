import Foundation
import Strata
import Testing

/// `HTTPResponse` equality is the response as the server sent it: status, headers, body, URL.
/// How it was delivered (`source`, `retrySummary`) is not part of it.
@Suite("HTTPResponse equality")
struct HTTPResponseEqualityTests {
    private static let sent = HTTPResponse(
        statusCode: 200, headers: ["Content-Type": "application/json"],
        body: Data(#"{"id":1}"#.utf8), url: URL(string: "https://api.example.com/items/1"))

    @Test("a response that needed a retry equals the same response sent once, and hashes the same")
    func retriedEqualsUnretried() {
        var retried = Self.sent
        retried.retrySummary = RetrySummary(attempts: 3, elapsed: .milliseconds(1_734), stopReason: .retriesExhausted)
        #expect(retried == Self.sent)
        #expect(Set([retried, Self.sent]).count == 1)
    }

    @Test("two retried responses that took different times are equal")
    func elapsedIsIgnored() {
        var first = Self.sent
        first.retrySummary = RetrySummary(attempts: 2, elapsed: .milliseconds(510), stopReason: .notRetryable)
        var second = Self.sent
        second.retrySummary = RetrySummary(attempts: 2, elapsed: .milliseconds(498), stopReason: .notRetryable)
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
    }

    @Test("a response answered from a store equals the one the network sent")
    func sourceIsIgnored() {
        var stored = Self.sent
        stored.source = .revalidated
        #expect(stored == Self.sent)
    }

    @Test(
        "status, headers, body and URL each make responses unequal",
        arguments: [
            { (response: inout HTTPResponse) in response.statusCode = 201 },
            { (response: inout HTTPResponse) in response.headers["ETag"] = "\"v2\"" },
            { (response: inout HTTPResponse) in response.body = Data("{}".utf8) },
            { (response: inout HTTPResponse) in response.url = URL(string: "https://api.example.com/items/2") },
        ] as [@Sendable (inout HTTPResponse) -> Void])
    func serverContentIsCompared(change: @Sendable (inout HTTPResponse) -> Void) {
        var changed = Self.sent
        change(&changed)
        #expect(changed != Self.sent)
    }
}
