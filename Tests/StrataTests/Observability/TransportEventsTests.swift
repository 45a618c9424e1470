#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
@testable import Strata
import StrataTesting
import Testing

@Suite("TransportEvents: what an unobserved request costs")
struct TransportEventsTests {
    @Test("a request identifier is drawn once, when first read: eight hex digits, the same for every reader")
    func lazyRequestIdentifier() async throws {
        let request = TransportEvents.LogicalRequest()
        let identifier = request.identifier
        #expect(identifier.count == 8 && identifier.allSatisfy(\.isHexDigit) && identifier == identifier.lowercased())
        #expect(request.identifier == identifier)
        #expect(TransportEvents.LogicalRequest.hex(0xabc) == "00000abc")
        #expect(TransportEvents.LogicalRequest.hex(.max) == "ffffffff")
    }

    @Test("readers racing for the first read all get the one identifier drawn")
    func racingReaders() async {
        let request = TransportEvents.LogicalRequest()
        let readings = await withTaskGroup(of: String.self) { group in
            for _ in 0..<32 { group.addTask { request.identifier } }
            return await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(readings.count == 1)
    }
}

@Suite("TransportEvents: what an observed request gets")
struct ObservedRequestIdentifierTests {
    @Test("observed requests each carry their own identifier, the same in every event of one request")
    func identifiersWhenObserved() async throws {
        let recorder = RecordingObserver()
        let stack = recorder.observing(CannedResponseTransport(string: "x"))
        for _ in 0..<20 { _ = try await stack.send(URLRequest(url: URL(string: "https://api.example.com/items")!)) }
        let identifiers = recorder.all.map(\.requestID)
        try #require(identifiers.count == 40)
        for start in stride(from: 0, to: 40, by: 2) { #expect(identifiers[start] == identifiers[start + 1]) }
        // 20 draws of 32 random bits collide with a probability below 1 in 10 million.
        #expect(Set(identifiers).count == 20)
        #expect(identifiers.allSatisfy { $0.utf8.count == 8 && $0.allSatisfy(\.isHexDigit) })
    }
}
