#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Dispatch
import Foundation
import Strata
import StrataTesting
import Testing
import TestServer

@Suite("Coalescing against the loopback server through URLSessionTransport")
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
        let events = RecordingObserver()
        let transport = events.observing(ETagTransport(inner: URLSessionTransport(requestTimeout: .seconds(30))))
        let request = HTTPRequest(url: server.url("/catalogue"))
        func count(_ name: String) -> Int { events.all.filter { $0.event.name == name }.count }
        // The first caller sends the request; the 99 others join it.
        var tasks = [Task { try await transport.send(request) }]
        #expect(await eventually(2_000_000) { count("etag.miss") == 1 })
        tasks += (1..<100).map { _ in Task { try await transport.send(request) } }
        #expect(await eventually(2_000_000) { count("etag.coalesced") == 99 }, "\(count("etag.coalesced")) callers joined")
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
