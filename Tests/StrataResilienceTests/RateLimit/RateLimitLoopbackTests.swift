#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Strata
import StrataResilience
import StrataTesting
import Testing
import TestServer

@Suite("RateLimitTransport over URLSessionTransport against a loopback server", .timeLimit(.minutes(1)))
struct RateLimitLoopbackTests {
    @Test("a 429 with Retry-After: 2 holds the next 100 requests instead of sending them, and sends them once the window reopens")
    func holdsHundredRequests() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let answered = LockedValue(0)
        server.route("/items", method: "GET") { _ in
            let count = answered.withLock { count in
                count += 1
                return count
            }
            return count == 1
                ? .init(status: 429, headers: [("Retry-After", "2")], text: "slow down")
                : .init(status: 200, text: "items")
        }
        let clock = TestClock(sleepsAdvanceTime: false)
        let transport = RateLimitTransport(inner: URLSessionTransport(), clock: clock)
        let request = HTTPRequest(url: server.url("/items"))

        let first = try await transport.send(request)
        #expect(first.statusCode == 429)
        #expect(first.headers["Retry-After"] == "2")

        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 { group.addTask { try await transport.send(request).statusCode } }
            await clock.waitForSleepers(100)
            // Every one of them is held: the server has seen only the first request.
            #expect(server.requestCount == 1)
            clock.advance(by: .seconds(2))
            var statuses: [Int] = []
            for try await status in group { statuses.append(status) }
            return statuses
        }
        #expect(statuses.count == 100)
        #expect(statuses.allSatisfy { $0 == 200 })
        #expect(server.requestCount == 101)
        #expect(server.requests.allSatisfy { $0.path == "/items" })
    }
}
