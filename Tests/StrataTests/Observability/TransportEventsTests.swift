@testable import Strata
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
