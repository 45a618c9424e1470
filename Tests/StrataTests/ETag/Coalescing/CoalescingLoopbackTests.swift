#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Dispatch
import Foundation
import Strata
import StrataTesting
import Testing
import TestServer

@Suite("Coalescing against the loopback server through URLSessionTransport", .timeLimit(.minutes(1)))
struct CoalescingLoopbackTests {
    @Test("100 concurrent identical GETs, one of them cancelled: 1 upstream request, and the 99 others get its response")
    func hundredCallers() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        // The handler runs on the server's own thread: it may block there until the test lets it answer.
        let release = DispatchSemaphore(value: 0)
        server.route("/catalogue", method: "GET") { _ in
            release.wait()
            return .init(status: 200, headers: [("ETag", "\"c1\""), ("Cache-Control", "max-age=60")], text: "catalogue")
        }
        let counter = EventCounter()
        let transport = ObservingTransport(
            inner: ETagTransport(inner: URLSessionTransport(requestTimeout: .seconds(30))),
            observer: counter.record)
        let request = HTTPRequest(url: server.url("/catalogue"))
        // The first caller sends the request; the 99 others join it.
        var tasks = [Task { try await transport.send(request) }]
        await counter.wait(for: "etag.miss", count: 1)
        tasks += (1..<100).map { _ in Task { try await transport.send(request) } }
        await counter.wait(for: "etag.coalesced", count: 99)
        // One caller gives up: only its own wait ends.
        tasks[42].cancel()
        await #expect(throws: CancellationError.self) { try await tasks[42].value }
        release.signal()
        for (index, task) in tasks.enumerated() where index != 42 {
            #expect(try await task.value.text == "catalogue")
        }
        #expect(server.requestCount == 1)
    }
}
