import Foundation
@testable import Strata
import StrataTesting
import Testing

@Suite("RetryTransport.stream: decides on the head, hands one response to the consumer")
struct RetryStreamTests {
    @Test("a 503 then a 200 reach the consumer once, with the final body; the 503's body is never read")
    func retriedBeforeConsume() async throws {
        let inner = ScriptedStreamTransport([.status(503, body: "busy"), .status(200, body: "done")])
        let transport = RetryFixtures.retrying(inner, random: .init([0.5]))
        let calls = LockedValue(0)
        let text = try await transport.stream(RetryFixtures.request()) { head, body in
            calls.withLock { $0 += 1 }
            #expect(head.statusCode == 200)
            return String(decoding: try await body.collect(upTo: 100), as: UTF8.self)
        }
        #expect(text == "done")
        #expect(calls.withLock { $0 } == 1)
        #expect(inner.bytesRead == [0, 4])
    }

    @Test("when retries run out, the consumer gets the last response")
    func lastResponse() async throws {
        let inner = ScriptedStreamTransport([.status(503, body: "busy")])
        let transport = RetryFixtures.retrying(inner, policy: RetryPolicy(maxRetries: 1, budget: nil), random: .init([0.5]))
        let status = try await transport.stream(RetryFixtures.request()) { head, _ in head.statusCode }
        #expect(status == 503)
        #expect(inner.requests.count == 2)
    }

    @Test("an error the consumer throws is never retried")
    func consumerErrorNotRetried() async throws {
        struct Stop: Error {}
        let inner = ScriptedStreamTransport([.status(200, body: "x")])
        let transport = RetryFixtures.retrying(inner)
        await #expect(throws: Stop.self) {
            try await transport.stream(RetryFixtures.request()) { _, _ -> Int in throw Stop() }
        }
        #expect(inner.requests.count == 1)
    }

    @Test("a transient failure before the head is retried")
    func failureRetried() async throws {
        let inner = ClosureTransport.sequence([.failing(TransportError(.connectionLost)), .succeeding(CannedResponse(string: "ok"))])
        let transport = RetryFixtures.retrying(inner, random: .init([0.5]))
        let text = try await transport.stream(RetryFixtures.request()) { _, body in
            String(decoding: try await body.collect(upTo: 100), as: UTF8.self)
        }
        #expect(text == "ok")
    }

    @Test("a single-pass upload is not retried: the 503 reaches the consumer")
    func singlePassUploadNotRetried() async throws {
        let inner = ScriptedStreamTransport([.status(503), .status(200)])
        let transport = RetryFixtures.retrying(inner)
        var request = RetryFixtures.request(.put)
        request.body = HTTPBody(AsyncStream<ArraySlice<UInt8>> { $0.finish() }, length: 0)
        let status = try await transport.stream(request) { head, _ in head.statusCode }
        #expect(status == 503)
        #expect(inner.requests.count == 1)
        #expect(try await transport.send(request).statusCode == 200, "send over the same double goes on")
    }
}
