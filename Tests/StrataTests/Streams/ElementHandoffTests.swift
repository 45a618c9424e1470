@testable import Strata
import Testing

@Suite("ElementHandoff: a bounded hand-over between a producing and a consuming task")
struct ElementHandoffTests {
    @Test("the producer waits once capacity elements wait unread, and goes on when one is taken")
    func backpressure() async throws {
        let handoff = ElementHandoff<Int>(capacity: 2)
        try await handoff.send(1)
        try await handoff.send(2)
        let third = Task { try await handoff.send(3) }
        while !handoff.isProducerWaiting { await Task.yield() }
        #expect(try await handoff.next() == 1)
        try await third.value
        handoff.finish()
        #expect(try await handoff.next() == 2)
        #expect(try await handoff.next() == 3)
        #expect(try await handoff.next() == nil)
    }

    @Test("when the consumer leaves, a waiting producer and every later send throw CancellationError")
    func consumerLeaves() async throws {
        let handoff = ElementHandoff<Int>(capacity: 1)
        try await handoff.send(1)
        let waiting = Task { try await handoff.send(2) }
        while !handoff.isProducerWaiting { await Task.yield() }
        handoff.consumerLeft()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        await #expect(throws: CancellationError.self) { try await handoff.send(3) }
    }

    @Test("the producer's error comes after the buffered elements, once")
    func errorAfterElements() async throws {
        struct Failure: Error {}
        let handoff = ElementHandoff<Int>(capacity: 4)
        try await handoff.send(1)
        handoff.finish(throwing: Failure())
        #expect(try await handoff.next() == 1)
        await #expect(throws: Failure.self) { try await handoff.next() }
        #expect(try await handoff.next() == nil)
    }

    @Test("a consumer cancelled while it waits gets CancellationError")
    func consumerCancelled() async throws {
        let handoff = ElementHandoff<Int>(capacity: 1)
        let consumer = Task { try await handoff.next() }
        consumer.cancel()
        await #expect(throws: CancellationError.self) { try await consumer.value }
    }
}
